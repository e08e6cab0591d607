/**
 * Writing a part to disk as it arrives. The bytes go to a temporary file next to the
 * target, renamed into place only once the part has ended; if anything fails before (the
 * client disconnects, a limit is passed, the disk is full) the temporary file is removed,
 * so no partial file is ever left at the target or beside it.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export async function saveStream(source: AsyncIterable<Uint8Array>, path: string): Promise<number> {
  const temporary = join(dirname(path), `.${basename(path)}.${crypto.randomUUID()}.part`);
  // "wx": never follow or reuse an existing file under that name.
  const fd = openSync(temporary, "wx");
  let open = true;
  let size = 0;
  try {
    for await (const chunk of source) {
      // Synchronous writes land in the page cache at once: each chunk is written and dropped
      // before the next is read, so memory does not pile up behind a write queue.
      let offset = 0;
      while (offset < chunk.byteLength) offset += writeSync(fd, chunk, offset, chunk.byteLength - offset);
      size += chunk.byteLength;
    }
    closeSync(fd);
    open = false;
    await rename(temporary, path);
    return size;
  } catch (error) {
    if (open) closeSync(fd);
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
