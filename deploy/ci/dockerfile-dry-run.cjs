#!/usr/bin/env node
/*
 * Builds the Dockerfile's stages without Docker (issue 34), so CI fails the day the image
 * build would: every path a COPY names must exist in the build context (the tracked tree minus
 * .dockerignore), and every RUN step runs, in order, in a scratch directory per stage whose
 * absolute paths (/app, /src, /manifests, /out ...) are mapped under that stage's own root.
 * The last stage is then smoke-tested: every service's compiled module graph loads with the
 * production dependencies only, and the ops CLI runs.
 *
 * What only a machine with Docker checks (docs/deploy.md): the base image itself, BuildKit's
 * cache mounts, USER/EXPOSE/CMD, file ownership, and that the image starts.
 *
 *   node deploy/ci/dockerfile-dry-run.cjs [--keep]    (--keep leaves the scratch directory)
 */
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
// Absolute paths in RUN steps that stay the host's: system directories, not the image's tree.
const SYSTEM_DIRS = new Set(['bin', 'dev', 'etc', 'proc', 'sys', 'tmp', 'usr', 'lib', 'root']);

function fail(message) {
  process.stderr.write(`dockerfile-dry-run: ERROR: ${message}\n`);
  process.exit(1);
}

function say(message) {
  process.stdout.write(`dockerfile-dry-run: ${message}\n`);
}

/** The Dockerfile as instructions: continuation lines joined, comments and blanks dropped. */
function parseDockerfile(text) {
  const instructions = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1) + ' ';
      continue;
    }
    const whole = (pending + line).trim();
    pending = '';
    const match = /^(\w+)\s+(.*)$/s.exec(whole);
    if (!match) fail(`cannot read the Dockerfile line: ${whole}`);
    instructions.push({ keyword: match[1].toUpperCase(), args: match[2].trim() });
  }
  return instructions;
}

/** A .dockerignore pattern as a regular expression over slash-separated relative paths. */
function ignorePattern(pattern) {
  if (pattern.startsWith('!')) fail('.dockerignore exceptions (!) are not handled by this check');
  let source = '';
  const p = pattern.replace(/^\/+/, '').replace(/\/+$/, '');
  for (let i = 0; i < p.length; i += 1) {
    if (p.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 2;
    } else if (p[i] === '*') source += '[^/]*';
    else if (p[i] === '?') source += '[^/]';
    else source += p[i].replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

function isIgnored(file, patterns) {
  const parts = file.split('/');
  for (let n = 1; n <= parts.length; n += 1) {
    const prefix = parts.slice(0, n).join('/');
    if (patterns.some((re) => re.test(prefix))) return true;
  }
  return false;
}

/** The build context: the files git knows (tracked or not ignored), minus .dockerignore. */
function stageContext(dir) {
  const ignoreFile = path.join(root, '.dockerignore');
  const patterns = fs.existsSync(ignoreFile)
    ? fs
        .readFileSync(ignoreFile, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#'))
        .map(ignorePattern)
    : [];
  const listed = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: root,
    },
  )
    .toString()
    .split('\0')
    .filter(Boolean);
  let count = 0;
  for (const file of listed) {
    if (isIgnored(file, patterns) || !fs.existsSync(path.join(root, file))) continue;
    fs.mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    fs.copyFileSync(path.join(root, file), path.join(dir, file));
    count += 1;
  }
  return count;
}

function splitWords(args) {
  return args.split(/\s+/).filter(Boolean);
}

function copyInto(source, destination, intoDirectory) {
  if (fs.statSync(source).isDirectory()) {
    fs.mkdirSync(destination, { recursive: true });
    fs.cpSync(source, destination, { recursive: true, verbatimSymlinks: true });
  } else {
    const target = intoDirectory ? path.join(destination, path.basename(source)) : destination;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(source, target);
  }
}

function main() {
  const keep = process.argv.includes('--keep');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'aff-dockerfile-'));
  const context = path.join(scratch, 'context');
  say(`build context: ${stageContext(context)} files (scratch ${scratch})`);

  const args = {};
  const stages = new Map();
  let stage = null;
  const inStage = (p) => path.join(stage.root, p);
  const cwdOf = () => inStage(stage.workdir);

  for (const { keyword, args: rest } of parseDockerfile(
    fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8'),
  )) {
    if (keyword === 'ARG') {
      const [name, value = ''] = rest.split('=');
      args[name] = value;
    } else if (keyword === 'FROM') {
      const [image, as, name] = splitWords(rest.replace(/\$\{(\w+)\}/g, (_, n) => args[n] ?? ''));
      if (!as || as.toUpperCase() !== 'AS' || !name) fail(`every stage needs a name: FROM ${rest}`);
      const parent = stages.get(image);
      stage = { name, root: path.join(scratch, 'stages', name), workdir: '/', env: {} };
      if (parent) {
        fs.cpSync(parent.root, stage.root, { recursive: true, verbatimSymlinks: true });
        Object.assign(stage, { workdir: parent.workdir, env: { ...parent.env } });
      } else {
        fs.mkdirSync(stage.root, { recursive: true });
        say(`stage ${name} from the image ${image} (not checked without Docker)`);
      }
      stages.set(name, stage);
    } else if (keyword === 'WORKDIR') {
      stage.workdir = path.posix.resolve(stage.workdir, rest);
      fs.mkdirSync(cwdOf(), { recursive: true });
    } else if (keyword === 'ENV') {
      for (const pair of splitWords(rest)) {
        const [key, ...value] = pair.split('=');
        stage.env[key] = value.join('=');
      }
    } else if (keyword === 'COPY') {
      const words = splitWords(rest);
      const from = words[0].startsWith('--from=') ? words.shift().slice('--from='.length) : null;
      const destination = words.pop();
      const fromRoot = from ? stages.get(from)?.root : context;
      if (!fromRoot) fail(`COPY --from=${from}: no such stage before this one`);
      const target = path.join(stage.root, path.posix.resolve(stage.workdir, destination));
      const intoDirectory = destination.endsWith('/') || words.length > 1;
      for (const source of words) {
        const resolved = path.join(fromRoot, source);
        if (!fs.existsSync(resolved))
          fail(
            `COPY ${from ? `--from=${from} ` : ''}${source}: not in ${from ?? 'the build context'}`,
          );
        copyInto(resolved, target, intoDirectory);
      }
    } else if (keyword === 'RUN') {
      const command = rest
        .replace(/^(--\w+=\S+\s+)+/, '')
        .replace(/(^|[\s'"=])\/(?=([A-Za-z][\w.-]*))/g, (all, before, dir) =>
          SYSTEM_DIRS.has(dir) ? all : `${before}${stage.root}/`,
        );
      say(`stage ${stage.name}: RUN ${rest.replace(/^(--\w+=\S+\s+)+/, '')}`);
      const result = spawnSync('sh', ['-c', command], {
        cwd: cwdOf(),
        env: { ...process.env, ...stage.env },
        stdio: 'inherit',
      });
      if (result.status !== 0) fail(`stage ${stage.name}: RUN failed (exit ${result.status})`);
    } else if (!['USER', 'EXPOSE', 'CMD', 'ENTRYPOINT', 'LABEL'].includes(keyword)) {
      fail(`instruction ${keyword} is not understood by this check; teach it here`);
    }
  }

  smokeTest(cwdOf(), stage.env);
  if (keep) say(`kept ${scratch}`);
  else fs.rmSync(scratch, { recursive: true, force: true });
  say('ok: every COPY source exists, every RUN step succeeded, the last stage loads');
}

/** The final stage loads each service's module graph with production dependencies only. */
function smokeTest(app, env) {
  const services = fs.readdirSync(path.join(app, 'services'));
  const modules = services.map((s) => `./services/${s}/dist/service.js`);
  for (const m of modules)
    if (!fs.existsSync(path.join(app, m))) fail(`${m} missing in the last stage`);
  const load = spawnSync(
    process.execPath,
    ['-e', `for (const m of ${JSON.stringify(modules)}) require(m);`],
    {
      cwd: app,
      env: { ...process.env, ...env, OTEL_SDK_DISABLED: 'true' },
      stdio: 'inherit',
    },
  );
  if (load.status !== 0)
    fail('a service module does not load in the last stage (a missing production dependency?)');
  const cli = spawnSync(process.execPath, ['services/gateway/dist/ops/cli.js'], {
    cwd: app,
    env: { ...process.env, ...env },
  });
  if (!String(cli.stderr).includes('usage:'))
    fail(`the ops CLI did not run in the last stage: ${cli.stderr}`);
  say(`last stage: ${services.length} services load (${services.join(', ')}), the ops CLI runs`);
}

main();
