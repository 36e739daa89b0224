// Uploading an agent's document as the CLI does (clients/python/src/workspace_client/bundle/upload.py): the portal
// signs a presigned S3 POST (POST /api/workspaces/{id}/uploads: the policy fixes the key, type and exact size), the
// browser sends the file straight to storage (XMLHttpRequest, for its upload progress: fetch has none), then the
// item names the object (POST or PATCH …/items with its r2Key). The bytes never go through the API.
import { ApiError, api, ok, type Schemas } from "../../api/client";

export type Item = Schemas["AgentItem"];
export type ItemKind = Item["kind"];

/** Where the console puts an agent's documents: under the agent's folder (the items' rule), in a folder of its own
 * so that deleting or replacing a document may delete its file without touching a post's media. */
export function documentsFolder(agentId: string): string {
  return `projects/${agentId}/documents/`;
}

const TEXT = "; charset=utf-8";
const OOXML = "application/vnd.openxmlformats-officedocument.";
const ODF = "application/vnd.oasis.opendocument.";
/** The upload type by extension: the CLI's table (bundle/files.py), since browsers give no type for many of these
 * (Markdown, often CSV) and the service takes only the types of its allowlist. */
const TYPES: Record<string, string> = {
  jpg: "image/jpeg", jpeg: "image/jpeg", png: "image/png", gif: "image/gif", webp: "image/webp", avif: "image/avif",
  mp4: "video/mp4", m4v: "video/mp4", webm: "video/webm", mov: "video/quicktime",
  mp3: "audio/mpeg", m4a: "audio/mp4", aac: "audio/aac", ogg: "audio/ogg", oga: "audio/ogg", opus: "audio/ogg",
  wav: "audio/wav", weba: "audio/webm",
  pdf: "application/pdf", json: "application/json",
  txt: "text/plain" + TEXT, md: "text/markdown" + TEXT, markdown: "text/markdown" + TEXT, csv: "text/csv" + TEXT,
  docx: OOXML + "wordprocessingml.document", xlsx: OOXML + "spreadsheetml.sheet",
  pptx: OOXML + "presentationml.presentation", doc: "application/msword", xls: "application/vnd.ms-excel",
  ppt: "application/vnd.ms-powerpoint", odt: ODF + "text", ods: ODF + "spreadsheet", odp: ODF + "presentation",
  epub: "application/epub+zip", zip: "application/zip",
};

/** What the file picker offers first (anything can still be dropped; the API answers what it refuses). */
export const ACCEPT = Object.keys(TYPES)
  .map((extension) => "." + extension)
  .join(",");

function extension(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** The type declared for the upload: by extension, else the browser's, else octet-stream. A type the service refuses
 * (an HTML page, an SVG) is sent as the browser names it, so the API's refusal says which and why. */
export function contentTypeOf(file: File): string {
  return TYPES[extension(file.name)] ?? (file.type || "application/octet-stream");
}

export function kindOf(contentType: string): ItemKind {
  const major = contentType.split("/", 1)[0];
  return major === "image" || major === "video" || major === "audio" ? major : "document";
}

/** The item's name: the file's name without its extension (what a chat's sources show a visitor). */
export function itemName(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  const name = (dot > 0 ? fileName.slice(0, dot) : fileName).trim();
  return (name || fileName).slice(0, 200);
}

/** A file name as one path segment of the r2 rules (core/objects/paths.py): no slash, backslash or control
 * character, never "." or "..", at most 200 characters. */
export function segment(fileName: string): string {
  // eslint-disable-next-line no-control-regex
  let name = fileName.replace(/[/\\\u0000-\u001f\u007f-\u009f]/g, "_").trim();
  if (name === "" || name === "." || name === "..") name = "file";
  if (name.length > 200) {
    const ext = extension(name);
    name = name.slice(0, 200 - ext.length - 1) + (ext ? "." + ext : "");
  }
  return name;
}

/** `folder + name`, or `name-2`, `name-3`… before its extension when another item already names that path: a new
 * document never overwrites another's file. */
export function freePath(folder: string, fileName: string, taken: Set<string>): string {
  const name = segment(fileName);
  if (!taken.has(folder + name)) return folder + name;
  const ext = extension(name);
  const stem = ext ? name.slice(0, -(ext.length + 1)) : name;
  for (let n = 2; ; n++) {
    const candidate = `${folder}${stem}-${n}${ext ? "." + ext : ""}`;
    if (!taken.has(candidate)) return candidate;
  }
}

export type Ticket = Schemas["UploadTicket"];

/** Ask the portal to sign the upload (402 STORAGE_LIMIT_REACHED, 400 for a type it refuses: an ApiError). */
export function sign(workspaceId: string, path: string, contentType: string, size: number): Promise<Ticket> {
  return ok(() =>
    api.POST("/api/workspaces/{workspaceId}/uploads", {
      params: { path: { workspaceId } },
      body: { path, contentType, size },
    }),
  );
}

const S3_ERROR = /<(Code|Message)>([^<]*)<\/\1>/g;

/** Storage's refusal as an ApiError: its code and message from the XML body (a policy, a size, an expiry). */
function storageRefusal(status: number, body: string): ApiError {
  const found: Record<string, string> = {};
  for (const match of body.matchAll(S3_ERROR)) found[match[1]!] = match[2]!;
  const message = found.Message || `storage answered ${status}`;
  return new ApiError(status, found.Code || "STORAGE_" + status, "Storage refused the file: " + message);
}

/** Post the file to storage with the ticket's fields (the file last, as S3 wants it); `progress(sent, total)`. */
export function send(ticket: Ticket, file: Blob, progress: (sent: number, total: number) => void): Promise<void> {
  const form = new FormData();
  for (const [name, value] of Object.entries(ticket.fields)) form.append(name, value);
  form.append("file", file);
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", ticket.url);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) progress(event.loaded, event.total);
    };
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) {
        progress(file.size, file.size);
        resolve();
      } else reject(storageRefusal(request.status, request.responseText));
    };
    request.onerror = () => reject(new Error("the file could not be sent to storage (the connection failed)"));
    request.onabort = () => reject(new Error("the upload was cancelled"));
    request.send(form);
  });
}

/** An object's DELETE keeps the path's slashes (the route is `objects/{path+}`); each segment is encoded. */
export function deleteObject(workspaceId: string, path: string): Promise<unknown> {
  return ok(() =>
    api.DELETE("/api/workspaces/{workspaceId}/objects/{path}", {
      params: { path: { workspaceId, path } },
      pathSerializer: (pathname, params) =>
        pathname
          .replace("{workspaceId}", encodeURIComponent(String(params.workspaceId)))
          .replace("{path}", String(params.path).split("/").map(encodeURIComponent).join("/")),
    }),
  );
}
