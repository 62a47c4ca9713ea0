// Turns a stored site file into the bytes and content type to send. Text files are stored as
// text; binary files (fetch_image) as `data:<type>;base64,<bytes>`, which are decoded and sent
// with their own type, provided it is a well-formed media type.
import { contentTypeOf } from './site-content-type.js';

const DATA_URL = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+);base64,/i;

export interface SiteFileBody {
  body: Buffer;
  contentType: string;
}

/** Decodes a stored file for sending. */
export function decodeSiteFile({ path, content }: { path: string; content: string }): SiteFileBody {
  const dataUrl = DATA_URL.exec(content);
  if (dataUrl?.[1]) {
    return { body: Buffer.from(content.slice(dataUrl[0].length), 'base64'), contentType: dataUrl[1].toLowerCase() };
  }
  return { body: Buffer.from(content, 'utf8'), contentType: contentTypeOf(path) };
}
