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

  const draw = () => {
    const w = video.videoWidth;
    const hgt = video.videoHeight;
    if (!w || !hgt) return;
    if (canvas.width !== w || canvas.height !== hgt) {
      canvas.width = w;
      canvas.height = hgt;
      scratch.canvas.width = w;
      scratch.canvas.height = hgt;
    }
    // The mask follows the colour video; a drift beyond a frame is corrected.
    if (Math.abs(mask.currentTime - video.currentTime) > 0.05) mask.currentTime = video.currentTime;
    scratch.drawImage(mask, 0, 0, w, hgt);
    const a = scratch.getImageData(0, 0, w, hgt).data;
    ctx.drawImage(video, 0, 0, w, hgt);
    const frame = ctx.getImageData(0, 0, w, hgt);
    const px = frame.data;
    for (let i = 0; i < px.length; i += 4) px[i + 3] = a[i];
    ctx.putImageData(frame, 0, 0);
    if (video.duration) seek.value = String(Math.round((video.currentTime / video.duration) * 1000));
    time.textContent = `${video.currentTime.toFixed(1)} s`;
  };
  const loop = () => {
    draw();
    if (!video.paused && !video.ended) requestAnimationFrame(loop);
  };
  video.addEventListener('play', () => {
    mask.currentTime = video.currentTime;
    mask.play().catch(() => {});
    play.textContent = 'Pause';
    requestAnimationFrame(loop);
  });
  video.addEventListener('pause', () => {
    mask.pause();
    play.textContent = 'Play';
  });
  video.addEventListener('ended', () => (play.textContent = 'Play'));
  video.addEventListener('seeked', () => {
    mask.currentTime = video.currentTime;
  });
  mask.addEventListener('seeked', draw);
  video.addEventListener('loadeddata', draw);
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
