// Plays a finished video in the page. A transparent render comes as two videos of the same size and
// timing: `video_url` (the character on black) and `alpha_url` (a greyscale mask, white = character).
// They are composed per frame on a canvas over a checkerboard: colour from the first, alpha from the
// mask's brightness.
import { h } from './dom.js';

export function player({ id, videoUrl, alphaUrl }) {
  const download = h('a', { class: 'button secondary', href: videoUrl, download: `${id}.mp4` }, 'Download video');
  if (!alphaUrl) {
    const video = h('video', {
      src: videoUrl,
      controls: true,
      playsinline: true,
      preload: 'auto',
      'aria-label': `Result ${id}`,
      dataset: { role: 'result' },
    });
    return h('div', { class: 'result' }, h('div', { class: 'stage' }, video), download);
  }

  const video = h('video', { src: videoUrl, playsinline: true, preload: 'auto', class: 'hidden-video', dataset: { role: 'result' } });
  const mask = h('video', { src: alphaUrl, muted: true, playsinline: true, preload: 'auto', class: 'hidden-video', 'aria-hidden': 'true' });
  const canvas = h('canvas', { role: 'img', 'aria-label': `Result ${id}, transparent, shown over a checkerboard` });
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const scratch = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  const play = h('button', { type: 'button' }, 'Play');
  const seek = h('input', { type: 'range', min: 0, max: 1000, value: 0, 'aria-label': 'Position' });
  const time = h('span', { class: 'muted', 'aria-live': 'off' }, '0.0 s');

  // Both videos play; a composite is drawn only when the mask shows the same frame as the colour video
  // (half a frame apart at most). Two elements decode on their own clocks, and a colour frame composed
  // with a mask from another instant paints limbs black where the mask has them and the colour does not.
  const HALF_FRAME = 0.021;
  let maskTime = -1;
  const compose = () => {
    const w = video.videoWidth;
    const hgt = video.videoHeight;
    if (!w || !hgt) return;
    if (canvas.width !== w || canvas.height !== hgt) {
      canvas.width = w;
      canvas.height = hgt;
      scratch.canvas.width = w;
      scratch.canvas.height = hgt;
    }
    scratch.drawImage(mask, 0, 0, w, hgt);
    const a = scratch.getImageData(0, 0, w, hgt).data;
    ctx.drawImage(video, 0, 0, w, hgt);
    const frame = ctx.getImageData(0, 0, w, hgt);
    const px = frame.data;
    for (let i = 0; i < px.length; i += 4) px[i + 3] = a[i];
    ctx.putImageData(frame, 0, 0);
  };
  const showTime = () => {
    if (video.duration) seek.value = String(Math.round((video.currentTime / video.duration) * 1000));
    time.textContent = `${video.currentTime.toFixed(1)} s`;
  };
  // Paused (loaded, seeked, paused): the mask is sought to the colour video's instant and composed once there.
  const syncPaused = () => {
    showTime();
    if (Math.abs(mask.currentTime - video.currentTime) > 0.001) mask.currentTime = video.currentTime;
    else compose();
  };
  mask.addEventListener('seeked', () => {
    maskTime = mask.currentTime;
    if (video.paused) compose();
  });
  const frameCallbacks = typeof video.requestVideoFrameCallback === 'function';
  if (frameCallbacks) {
    const onMask = (_now, meta) => {
      maskTime = meta.mediaTime;
      mask.requestVideoFrameCallback(onMask);
    };
    const onVideo = (_now, meta) => {
      const drift = maskTime - meta.mediaTime;
      if (Math.abs(drift) <= HALF_FRAME) compose();
      else if (Math.abs(drift) > 0.15 && !mask.seeking) mask.currentTime = video.currentTime;
      showTime();
      video.requestVideoFrameCallback(onVideo);
    };
    mask.requestVideoFrameCallback(onMask);
    video.requestVideoFrameCallback(onVideo);
  }
  const loop = () => {
    // Without frame callbacks: compose on each animation frame, correcting a drift beyond a frame.
    if (Math.abs(mask.currentTime - video.currentTime) > 0.05) mask.currentTime = video.currentTime;
    else compose();
    showTime();
    if (!video.paused && !video.ended) requestAnimationFrame(loop);
  };
  video.addEventListener('play', () => {
    mask.currentTime = video.currentTime;
    mask.play().catch(() => {});
    play.textContent = 'Pause';
    if (!frameCallbacks) requestAnimationFrame(loop);
  });
  video.addEventListener('pause', () => {
    mask.pause();
    play.textContent = 'Play';
    syncPaused();
  });
  video.addEventListener('ended', () => (play.textContent = 'Play'));
  video.addEventListener('seeked', syncPaused);
  video.addEventListener('loadeddata', syncPaused);
  mask.addEventListener('loadeddata', () => video.paused && syncPaused());
  play.addEventListener('click', () => (video.paused ? video.play() : video.pause()));
  seek.addEventListener('input', () => {
    if (video.duration) video.currentTime = (Number(seek.value) / 1000) * video.duration;
  });
  const alphaLink = h('a', { class: 'button secondary', href: alphaUrl, download: `${id}-alpha.mp4` }, 'Download alpha');
  return h(
    'div',
    { class: 'result' },
    h('div', { class: 'stage' }, canvas, video, mask),
    h('div', { class: 'controls' }, play, seek, time),
    download,
    alphaLink,
  );
}
