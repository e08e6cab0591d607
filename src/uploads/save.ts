/**
 * Writing a part to disk as it arrives. The bytes go to a temporary file next to the
 * target, renamed into place only once the part has ended; if anything fails before (the
 * client disconnects, a limit is passed, the disk is full) the temporary file is removed,
 * so no partial file is ever left at the target or beside it.
 */
import { randomUUID } from "node:crypto";
import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export async function saveStream(source: AsyncIterable<Uint8Array>, path: string): Promise<number> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomUUID()}.part`);
  // "wx": never follow or reuse an existing file under that name.
  const file = await open(temporary, "wx");
  let size = 0;
  try {
    for await (const chunk of source) {
      let offset = 0;
      while (offset < chunk.byteLength) {
        const { bytesWritten } = await file.write(chunk, offset, chunk.byteLength - offset);
        offset += bytesWritten;
      }
      size += chunk.byteLength;
    }
    await file.close();
    await rename(temporary, path);
    return size;
  } catch (error) {
    await file.close().catch(() => {});
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
