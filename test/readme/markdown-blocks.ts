/**
 * The fenced code blocks of a Markdown file with the conventions the README-runner (readme.test.ts) reads from the
 * HTML comments right before a block:
 * - `<!-- not run: why -->`: a shell block is not run, a TypeScript block is compiled but not run;
 * - `<!-- not compiled: why -->`: a TypeScript block that needs files the reader generates (e.g. an OpenAPI client);
 * - `<!-- declare: TypeScript declarations -->`: the snippet's free variables, prepended when it is compiled.
 */
export interface CodeBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly code: string;
  readonly notRun?: string;
  readonly notCompiled?: string;
  readonly declarations?: string;
}

export function codeBlocks(file: string, markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  let comments: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fence = /^```(\S*)\s*$/.exec(line);
    if (!fence) {
      const comment = /^<!--\s*(.*?)\s*-->\s*$/.exec(line);
      if (comment) comments.push(comment[1] ?? '');
      else if (line.trim() !== '') comments = [];
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ''); i++) body.push(lines[i] ?? '');
    const notRun = comments.find((c) => c.startsWith('not run:'))?.slice('not run:'.length).trim();
    const declarations = comments.find((c) => c.startsWith('declare:'))?.slice('declare:'.length).trim();
    const notCompiled = comments.find((c) => c.startsWith('not compiled:'))?.slice('not compiled:'.length).trim();
    blocks.push({
      file,
      line: start + 1,
      lang: fence[1] ?? '',
      code: `${body.join('\n')}\n`,
      ...(notRun !== undefined ? { notRun } : {}),
      ...(notCompiled ? { notCompiled } : {}),
      ...(declarations !== undefined ? { declarations } : {}),
    });
    comments = [];
  }
  return blocks;
}

export const isTypeScript = (block: CodeBlock): boolean => ['ts', 'typescript', 'js', 'javascript', 'mjs'].includes(block.lang);
export const isShell = (block: CodeBlock): boolean => ['sh', 'bash', 'shell', 'console'].includes(block.lang);
