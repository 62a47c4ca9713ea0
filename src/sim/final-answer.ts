// The builder's closing texts. Each answer is three paragraphs so the `multi_block_text`
// scenario can return them as three blocks; normally they are joined into one.
import { assertNever } from '../domain/assert-never.js';
import type { BuilderProgress } from './builder-progress.js';
import type { PlannedTurn } from './planned-turn.js';

export type FinalAnswerReason = 'published' | 'progress-report' | 'gave-up' | 'transcript-too-long' | 'no-tools';

function describeProgress(progress: BuilderProgress): string {
  const done: string[] = [];
  if (progress.planWritten) done.push('planned the site');
  if (progress.writtenFiles.size > 0) done.push(`wrote ${[...progress.writtenFiles].join(', ')}`);
  if (progress.latestDeployment) done.push('deployed it');
  if (progress.publishedUrl) done.push('published it');
  return done.length > 0 ? `So far I have ${done.join(', ')}.` : 'I have not made any changes yet.';
}

function whereToLook(progress: BuilderProgress): string {
  if (progress.publishedUrl) return `The site is live at ${progress.publishedUrl}.`;
  if (progress.latestDeployment?.url) return `The latest deploy is at ${progress.latestDeployment.url}.`;
  return 'Nothing is deployed yet.';
}

/** The final answer for a reason; `detail` is the error that stopped the builder, if any. */
export function composeFinalAnswer({
  reason,
  progress,
  detail,
}: {
  reason: FinalAnswerReason;
  progress: BuilderProgress;
  detail?: string;
}): Extract<PlannedTurn, { kind: 'final-answer' }> {
  const paragraphs = ((): [string, string, string] => {
    switch (reason) {
      case 'published':
        return [
          `The ${progress.siteTitle} site is built, verified and published.`,
          'I wrote index.html, about.html, styles.css and logo.svg, deployed them, checked the live page and its images, and set the page metadata.',
          `You can see it at ${progress.publishedUrl ?? progress.latestDeployment?.url ?? 'the published address'}.`,
        ];
      case 'progress-report':
        return ['Here is where the build stands.', describeProgress(progress), whereToLook(progress)];
      case 'gave-up':
        return [
          'I had to stop before finishing.',
          `The step that failed reported: ${(detail ?? 'an unknown error').slice(0, 500)}`,
          `${describeProgress(progress)} ${whereToLook(progress)}`,
        ];
      case 'transcript-too-long':
        return ["I'm stopping here because this conversation has grown too long.", describeProgress(progress), whereToLook(progress)];
      case 'no-tools':
        return ['I need tools to build the site, and none were offered.', describeProgress(progress), whereToLook(progress)];
      default:
        return assertNever(reason);
    }
  })();
  return { kind: 'final-answer', paragraphs };
}
