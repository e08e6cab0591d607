import { nodeFs, nodeFsPromises, nodePath } from "../builtins.ts";
import { refuseEmbeddedWrite } from "../embed/embedded-writes.ts";
/**
 * Writing a part to disk as it arrives. The bytes go to a temporary file next to the
 * target, renamed into place only once the part has ended; if anything fails before (the
 * client disconnects, a limit is passed, the disk is full) the temporary file is removed,
 * so no partial file is ever left at the target or beside it.
 */

export async function saveStream(source: AsyncIterable<Uint8Array>, path: string): Promise<number> {
  refuseEmbeddedWrite(path, "saveTo");
  const temporary = nodePath().join(
    nodePath().dirname(path),
    `.${nodePath().basename(path)}.${crypto.randomUUID()}.part`,
  );
  // "wx": never follow or reuse an existing file under that name.
  const fd = nodeFs().openSync(temporary, "wx");
  let open = true;
  let size = 0;
  try {
    for await (const chunk of source) {
      // Synchronous writes land in the page cache at once: each chunk is written and dropped
      // before the next is read, so memory does not pile up behind a write queue.
      let offset = 0;
      while (offset < chunk.byteLength)
        offset += nodeFs().writeSync(fd, chunk, offset, chunk.byteLength - offset);
      size += chunk.byteLength;
    }
    nodeFs().closeSync(fd);
    open = false;
    await nodeFsPromises().rename(temporary, path);
    return size;
  } catch (error) {
    if (open) nodeFs().closeSync(fd);
    await nodeFsPromises()
      .unlink(temporary)
      .catch(() => {});
    throw error;
  }
}
