import { join } from 'node:path';
import type { GenerationRequest, GenerationResult, VideoGenerator } from '../../domain/ports/video-generator.js';
import { EngineError, type CharacterAssets } from '../../engine/types.js';
import { internalError } from '../../contracts/errors.js';
import { builtinCharacter } from '../handlers/render-run.handler.js';
import type { Ports } from '../../domain/ports/index.js';

/**
 * The default generator: the engine's embedded CPU generator. The subject is the first frame's
 * figure when one can be cut out and rigged; otherwise (no first frame, or a frame without a figure,
 * such as a landscape) the built-in character, with the first frame as the setting.
 */
export function embeddedGenerator(deps: Pick<Ports, 'engine' | 'storage'>): VideoGenerator {
  return {
    name: 'embedded',
    async generate(req: GenerationRequest): Promise<GenerationResult> {
      const generate = deps.engine.generate.bind(deps.engine);
      if (!generate) throw internalError('This engine has no embedded generator.', false);
      let subject: CharacterAssets | null = null;
      let fromFrame = false;
      if (req.firstFrameFile) {
        try {
          subject = await deps.engine.analyzeCharacter({
            imageFile: req.firstFrameFile,
            outDir: join(req.workDir, 'subject'),
            thumbnail: false,
            signal: req.signal,
          });
          fromFrame = true;
        } catch (e) {
          if (!(e instanceof EngineError) || e.code !== 'INVALID_CHARACTER') throw e;
        }
      }
      req.onProgress(10);
      subject ??= await builtinCharacter(deps, join(req.workDir, 'builtin'), req.signal);
      const out = await generate({
        prompt: req.prompt,
        tags: req.tags,
        durationS: req.durationS,
        width: req.width,
        height: req.height,
        seed: req.seed,
        quality: req.quality,
        enhance: req.enhance,
        watermark: req.watermark,
        subject,
        subjectFromFirstFrame: fromFrame,
        firstFrameFile: req.firstFrameFile,
        lastFrameFile: req.lastFrameFile,
        workDir: join(req.workDir, 'gen'),
        signal: req.signal,
        onProgress: (_stage, p) => req.onProgress(10 + p * 0.9),
      });
      return { videoFile: out.videoFile, durationMs: out.durationMs, enhancedPrompt: out.enhancedPrompt };
    },
  };
}
