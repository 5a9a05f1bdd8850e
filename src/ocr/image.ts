import { AppError } from '../errors.js';

/** The image types a frame may hold (docs/rest.md#ocr). */
export const IMAGE_TYPES = ['png', 'jpeg', 'webp', 'bmp', 'gif'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/** At most 40 megapixels, checked from the header before any decoding (docs/rest.md#ocr). */
export const MAX_PIXELS = 40_000_000;

export interface ImageInfo {
  type: ImageType;
  width: number;
  height: number;
}

export interface Frame extends ImageInfo {
  data: Buffer;
}

const NAMES: Record<ImageType, string> = { png: 'PNG', jpeg: 'JPEG', webp: 'WebP', bmp: 'BMP', gif: 'GIF' };
const MEDIA_TYPES: Record<string, ImageType> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/webp': 'webp',
  'image/bmp': 'bmp',
  'image/x-ms-bmp': 'bmp',
  'image/gif': 'gif',
};
const FORM = 'data:image/<png|jpeg|webp|bmp|gif>;base64,<DATA>';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const bad = (message: string) => new AppError('BAD_REQUEST', `frame: ${message}`);

function preview(s: string): string {
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}...` : s);
}

/**
 * Checks a `data:` URL frame and reads the image's type and size from its header, so that
 * nothing a client sends reaches the OCR engine unless it is an image of an accepted type within
 * the pixel limit. Only data URLs: the server never fetches anything.
 */
export function parseFrame(frame: unknown): Frame {
  if (typeof frame !== 'string')
    throw new AppError(
      'BAD_REQUEST',
      `frame must be a string, a data URL ${FORM}; got ${frame === undefined ? 'nothing' : typeof frame}`,
    );
  if (!/^data:/i.test(frame)) throw bad(`must be a data URL ${FORM} (URLs are not fetched); got ${preview(frame)}`);
  const comma = frame.indexOf(',');
  if (comma < 0) throw bad(`a data URL needs a comma before its data (${FORM}); got ${preview(frame)}`);
  const [mediaType = '', ...params] = frame.slice(5, comma).toLowerCase().split(';');
  const name = mediaType.trim();
  const declared = Object.hasOwn(MEDIA_TYPES, name) ? MEDIA_TYPES[name] : undefined;
  if (!declared) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `frame: the image type must be one of ${IMAGE_TYPES.map((t) => `image/${t}`).join(', ')}; got ${JSON.stringify(mediaType || 'none')}`,
    );
  }
  if (!params.some((p) => p.trim() === 'base64'))
    throw bad(`the data must be base64-encoded (${FORM}); got ${preview(frame.slice(0, comma + 1))}`);
  const text = frame.slice(comma + 1).replace(/\s+/g, '');
  if (text.length === 0) throw bad('the image is empty: no data after "base64,"');
  if (!BASE64.test(text) || text.length % 4 === 1) throw bad('the data after "base64," is not valid base64');
  const data = Buffer.from(text, 'base64');
  const info = imageInfo(data);
  if (!info)
    throw bad(
      `the data is not a ${Object.values(NAMES).slice(0, -1).join(', ')} or ${NAMES.gif} image (first bytes: ${data.subarray(0, 8).toString('hex')})`,
    );
  if (info.type !== declared) throw bad(`declared image/${declared} but the data is a ${NAMES[info.type]} image`);
  if (info.width === undefined || info.height === undefined)
    throw bad(`the ${NAMES[info.type]} header is truncated or invalid`);
  if (info.width === 0 || info.height === 0) throw bad(`the image has no pixels (${info.width}x${info.height})`);
  const pixels = info.width * info.height;
  if (pixels > MAX_PIXELS) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `frame: the image is ${info.width}x${info.height} = ${(pixels / 1e6).toFixed(1)} megapixels; at most ${MAX_PIXELS / 1e6} megapixels`,
    );
  }
  return { type: info.type, width: info.width, height: info.height, data };
}

/** The type from the magic bytes, and the size from the header where it is complete. */
export function imageInfo(b: Buffer): { type: ImageType; width?: number; height?: number } | null {
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a)
    return { type: 'png', ...png(b) };
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return { type: 'jpeg', ...jpeg(b) };
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.toString('latin1', 0, 6)))
    return { type: 'gif', ...(b.length >= 10 ? { width: b.readUInt16LE(6), height: b.readUInt16LE(8) } : {}) };
  if (b.length >= 2 && b[0] === 0x42 && b[1] === 0x4d) return { type: 'bmp', ...bmp(b) };
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP')
    return { type: 'webp', ...webp(b) };
  return null;
}

type Size = { width: number; height: number } | Record<string, never>;

/** The IHDR chunk comes first: width and height as big-endian 32-bit integers. */
function png(b: Buffer): Size {
  if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') return {};
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/** Walks the marker segments to the first start-of-frame (SOF0..SOF15 but DHT, JPG, DAC). */
function jpeg(b: Buffer): Size {
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return {};
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i += 1; // fill byte
      continue;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return {}; // end of image or scan data before any frame header
    const length = b.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (i + 9 > b.length) return {};
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    if (length < 2) return {};
    i += 2 + length;
  }
  return {};
}

/** BITMAPCOREHEADER (OS/2, 16-bit sizes) or BITMAPINFOHEADER and later (signed 32-bit; negative height is top-down). */
function bmp(b: Buffer): Size {
  if (b.length < 26) return {};
  const headerSize = b.readUInt32LE(14);
  if (headerSize === 12) return { width: b.readUInt16LE(18), height: b.readUInt16LE(20) };
  if (headerSize < 40) return {};
  return { width: Math.abs(b.readInt32LE(18)), height: Math.abs(b.readInt32LE(22)) };
}

/** Lossy (VP8), lossless (VP8L) or extended (VP8X) WebP. */
function webp(b: Buffer): Size {
  if (b.length < 30) return {};
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ' && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) {
    return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === 'VP8L' && b[20] === 0x2f) {
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  return {};
}
