import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../src/config.js';
import { imageInfo, parseFrame } from '../../src/ocr/image.js';

// Sizes come from the headers alone, before any decoding: the 40-megapixel limit depends on it.

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'ocr');

function webpVp8x(width: number, height: number): Buffer {
  const b = Buffer.alloc(30);
  b.write('RIFF', 0, 'latin1');
  b.write('WEBP', 8, 'latin1');
  b.write('VP8X', 12, 'latin1');
  b.writeUIntLE(width - 1, 24, 3);
  b.writeUIntLE(height - 1, 27, 3);
  return b;
}

function bmp(headerSize: number, width: number, height: number): Buffer {
  const b = Buffer.alloc(54);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(headerSize, 14);
  if (headerSize === 12) {
    b.writeUInt16LE(width, 18);
    b.writeUInt16LE(height, 20);
  } else {
    b.writeInt32LE(width, 18);
    b.writeInt32LE(height, 22);
  }
  return b;
}

/** SOI, an APP0 segment, a DQT segment, then a progressive frame header (SOF2). */
function progressiveJpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const dqt = Buffer.from([0xff, 0xdb, 0x00, 0x04, 0x00, 0x00]);
  const sof2 = Buffer.from([
    0xff,
    0xc2,
    0x00,
    0x0b,
    8,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    1,
    1,
    0x11,
    0,
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, dqt, sof2]);
}

describe('image headers', () => {
  it.each(['png', 'jpeg', 'gif', 'bmp', 'webp'])('reads the size of a real %s file (420x60)', (type) => {
    expect(imageInfo(fs.readFileSync(path.join(FIXTURES, `line.${type}`)))).toEqual({ type, width: 420, height: 60 });
  });

  it('reads extended WebP (VP8X), both BMP header kinds (a negative height is top-down) and a progressive JPEG', () => {
    expect(imageInfo(webpVp8x(10_000, 5_000))).toEqual({ type: 'webp', width: 10_000, height: 5_000 });
    expect(imageInfo(bmp(12, 300, 200))).toEqual({ type: 'bmp', width: 300, height: 200 });
    expect(imageInfo(bmp(40, 300, -200))).toEqual({ type: 'bmp', width: 300, height: 200 });
    expect(imageInfo(progressiveJpeg(9_000, 6_000))).toEqual({ type: 'jpeg', width: 9_000, height: 6_000 });
  });

  it('knows the type but no size when the header is cut short, and nothing for other bytes', () => {
    const png = fs.readFileSync(path.join(FIXTURES, 'line.png'));
    expect(imageInfo(png.subarray(0, 16))).toEqual({ type: 'png' });
    expect(imageInfo(progressiveJpeg(10, 10).subarray(0, 30))).toEqual({ type: 'jpeg' });
    expect(imageInfo(Buffer.from('II*\0 a TIFF file'))).toBeNull();
    expect(imageInfo(Buffer.alloc(0))).toBeNull();
  });

  it('refuses a 10000x5000 WebP (50 megapixels) before decoding it', () => {
    const frame = `data:image/webp;base64,${webpVp8x(10_000, 5_000).toString('base64')}`;
    expect(() => parseFrame(frame)).toThrow('frame: the image is 10000x5000 = 50.0 megapixels; at most 40 megapixels');
  });

  it('accepts image/jpg for JPEG and a base64 text broken over lines', () => {
    const data = fs
      .readFileSync(path.join(FIXTURES, 'line.jpeg'))
      .toString('base64')
      .replace(/(.{76})/g, '$1\n');
    expect(parseFrame(`data:image/jpg;base64,${data}`)).toMatchObject({ type: 'jpeg', width: 420, height: 60 });
  });
});
