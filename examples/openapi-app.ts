/**
 * A small documented API: `GET /openapi.json` is generated from these routes
 * and `GET /docs` is the interactive reference (Swagger UI, served locally).
 *
 *   bun examples/openapi-app.ts --port 8080   then open http://127.0.0.1:8080/docs
 *
 * Used by test/openapi/browser.test.ts.
 */
import { z } from "zod";
import {
  AuthenticationHandler,
  HttpError,
  Identity,
  type Request,
  SubRouter,
  t,
  Webfw,
} from "../src/index.ts";

const app = new Webfw(import.meta.path, {
  openapi: {
    title: "Bookshelf API",
    version: "1.0.0",
    description: "A tiny book catalogue. Writes need `Authorization: Bearer secret-token`.",
  },
});

class DemoAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    return this.tokenGetter.getToken(request) === "secret-token"
      ? new Identity({ claims: { user: "ada" } })
      : null;
  }
}
app.configureAuthentication(new DemoAuth());

interface Book {
  id: number;
  title: string;
  author: string;
  year?: number;
}
const shelf = new Map<number, Book>([
  [1, { id: 1, title: "Dune", author: "Frank Herbert", year: 1965 }],
  [2, { id: 2, title: "The Left Hand of Darkness", author: "Ursula K. Le Guin", year: 1969 }],
]);
let nextId = 3;

// zod schemas document themselves through Standard Schema's JSON Schema extension.
const NewBook = z.object({
  title: z.string().min(1),
  author: z.string().min(1),
  year: z.number().int().optional(),
});
const BookSchema = NewBook.extend({ id: z.number().int() });

app.get("/health", () => ({ status: "ok" }), {
  summary: "Health check",
  tags: ["meta"],
  responses: { "200": { description: "The service is up", schema: t.object({ status: t.str() }) } },
});

const books = new SubRouter(import.meta.path, { prefix: "/books" });

books.get(
  "/",
  ({ args }) =>
    [...shelf.values()].filter((b) => !args.author || b.author.includes(args.author)).slice(0, args.limit),
  {
    summary: "List books",
    description: "Every book, optionally only those whose author contains `author`.",
    args: {
      author: t.optional(t.str()).describe("Part of the author's name"),
      limit: t.int().default(10).describe("At most this many books"),
    },
    responses: { "200": { description: "The books", schema: z.array(BookSchema) } },
  },
);

books.get(
  "/:id",
  ({ args }) => {
    const book = shelf.get(args.id);
    if (!book) throw new HttpError(404, `no book ${args.id}`);
    return book;
  },
  {
    summary: "Get one book",
    args: { id: t.int().describe("The book's id") },
    responses: { "200": { description: "The book", schema: BookSchema }, "404": "No such book" },
  },
);

books.post(
  "/",
  ({ parsedBody }) => {
    const book = { id: nextId++, ...parsedBody };
    shelf.set(book.id, book);
    return [book, 201];
  },
  {
    summary: "Add a book",
    body: NewBook,
    authRequired: true,
    responses: { "201": { description: "The new book", schema: BookSchema } },
  },
);

books.delete(
  "/:id",
  ({ args }) => {
    if (!shelf.delete(args.id)) throw new HttpError(404, `no book ${args.id}`);
    return undefined;
  },
  {
    summary: "Remove a book",
    status: 204,
    args: { id: t.int() },
    authRequired: true,
    deprecated: true,
    responses: { "404": "No such book" },
  },
);

app.includeRouter(books);

app.get("/covers/*file", ({ pathParams }) => `cover ${pathParams.file}`, {
  summary: "A cover image path (wildcard)",
  tags: ["meta"],
  responses: { "200": { description: "The cover", contentType: "text/plain" } },
});

// Served, but not part of the public document.
app.get("/internal/stats", () => ({ books: shelf.size }), { includeInSchema: false });

if (import.meta.main) {
  const server = await app.start();
  console.log(`Bookshelf API on ${server.url} (reference at ${server.url}/docs)`);
}

export default app;
