import { describe, expect, it } from 'vitest';
import { dockerfileNodeMajor } from './image-base-image.js';

describe('dockerfileNodeMajor', () => {
  it("reads the major of the Dockerfile's default NODE_IMAGE", () => {
    expect(dockerfileNodeMajor('# one image\nARG NODE_IMAGE=node:24-slim\nFROM ${NODE_IMAGE}\n')).toBe(24);
  });

  it('refuses a Dockerfile without that line', () => {
    expect(() => dockerfileNodeMajor('FROM debian:bookworm\n')).toThrow(/ARG NODE_IMAGE/);
  });
});
