"""Scores a manifest of pairs on a Ray cluster, one Ray task per pair.

    python -m tvmaf.batch MANIFEST --ray ADDRESS|local [--out TABLE.csv]
                          [--backend cpu|cuda|auto] [--gpus-per-task N]
                          [--cpus-per-task N] [--max-retries N] [--num-cpus N]
                          [--tvmaf EXE] [-- TVMAF_OPTIONS...]

MANIFEST is the CLI's (tvmaf --batch): CSV with a header row (columns ref,
dis and optionally output, width, height, pix_fmt, bitdepth, model) or JSON
lines with those keys; relative paths are relative to the manifest's folder
and are made absolute here, so every node must see the files at those paths
(a shared file system). Each task runs the tvmaf CLI on its pair (so a crash
takes down one task, not the driver) with the options after `--` and
`--json --precision max`; a row's `output` keeps that JSON. The results
table (CSV, stdout without --out) has one row per manifest row: line, ref,
dis, status (ok, failed, bad_row), vmaf_mean (the pooled mean of the model
called "vmaf"), then KEY_mean for every other key the pairs' JSON pools (each
feature's and each model's pooled mean, e.g. psnr_y_mean, neg_mean; a pair
without that key leaves it empty), frames, error, output, worker (host:pid).
Means are printed exactly: repr of the double.

Scheduling, placement and retries are Ray's: each task asks for
--cpus-per-task CPUs and, with --backend cuda, --gpus-per-task GPUs (default
1; a fraction shares a GPU between pairs; Ray sets CUDA_VISIBLE_DEVICES so
the task's tvmaf sees its GPU as device 0). A task whose tvmaf process dies
(a signal: out of memory, a lost node) is retried up to --max-retries times;
a pair that tvmaf refuses (missing file, bad format) fails at once with its
message, since running it again would fail the same way.

Outputs (a row's output, the --out table) follow the rule of every regular
file tvmaf writes (tvmaf/_outputs.py, as the CLI's tools/outputs.c). Before
anything is scored, each row's output is compared with every input of the
run (the manifest, each row's ref and dis) and every other row's output by
file identity: device and inode for an existing file, the resolved path
(symbolic links followed) for one not there yet; special files (/dev/null, a
FIFO) are exempt. A row whose output names an input, or the output of a row
before it, is refused as a bad_row that names both (like any other bad row:
the other pairs are scored; the CLI's batch refuses such a row the same
way); an --out naming any of them refuses the whole run before it starts,
since it is no row's fault. tvmaf writes a pair's JSON to its stdout, which
the task sends to a temporary file in the output's folder named for the run
and the row, `.NAME.tmp-RUN-LINE`; it replaces the output by rename() once
complete and synced, with the output's mode when it exists, else 0666 less
the driver's umask (the same on every node), through a symbolic link (the
file it names is replaced). A special file is written in place. The
temporary file is removed when the task fails or is interrupted (SIGINT,
SIGTERM), by the next attempt of a task whose worker was killed outright,
and by the driver after each task's last attempt and, for the tasks still
running, when the driver stops (a signal, Ctrl-C).

Exit status 0 when every pair was scored, 1 otherwise (a summary on stderr).
"""
import argparse
import csv
import io
import json
import os
import secrets
import socket
import subprocess
import sys

from ._outputs import (Output, OutputError, current_umask, identity, remove_temporary,
                       terminate_raises, write_file)

COLUMNS = {
    'ref': 'ref', 'reference': 'ref', 'dis': 'dis', 'distorted': 'dis',
    'output': 'output', 'out': 'output', 'width': 'width', 'w': 'width',
    'height': 'height', 'h': 'height', 'pix_fmt': 'pix_fmt', 'pixel_format': 'pix_fmt',
    'p': 'pix_fmt', 'bitdepth': 'bitdepth', 'b': 'bitdepth', 'model': 'model', 'm': 'model',
}
PIX_FMTS = {'420': '420', 'yuv420p': '420', '422': '422', 'yuv422p': '422',
            '444': '444', 'yuv444p': '444', '400': '400', 'gray': '400'}
TABLE = ['line', 'ref', 'dis', 'status', 'vmaf_mean', 'frames', 'error', 'output', 'worker']
# the KEY_mean columns of the pooled keys go after vmaf_mean, in the order first met
MEANS_AFTER = 'vmaf_mean'


def pooled_columns(pooled_metrics):
    """{KEY_mean: mean} of a run's pooled values ({key: {'mean': ...}}, the
    JSON's pooled_metrics or Result.pooled), in their order: the table
    columns of every pooled key (the model called vmaf gives vmaf_mean)."""
    return {f'{k}_mean': p['mean'] for k, p in pooled_metrics.items()
            if isinstance(p, dict) and 'mean' in p}


def table_columns(results):
    """TABLE with the KEY_mean columns of `results` (dicts of rows) after
    vmaf_mean, each where the first row holding it put it."""
    means = []
    for r in results:
        means += [k for k in r if k.endswith('_mean') and k not in TABLE and k not in means]
    at = TABLE.index(MEANS_AFTER) + 1
    return TABLE[:at] + means + TABLE[at:]


class ManifestError(Exception):
    """A manifest that cannot be used at all."""


class Row:
    def __init__(self, line):
        self.line = line
        self.values = {}
        self.error = None

    def fail(self, msg):
        if self.error is None:
            self.error = msg


def _set(row, key, value, folder):
    col = COLUMNS.get(key)
    if col is None:
        row.fail(f'unknown key "{key}" (ref, dis, output, width, height, pix_fmt, bitdepth, model)')
        return
    if value is None or value == '':
        return
    if col == 'model' and isinstance(value, list):
        if not value or not all(isinstance(m, str) for m in value):
            row.fail('model: expected a string or an array of strings')
            return
        value = ';'.join(value)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        row.fail(f'{key}: expected a {"number" if col in ("width", "height", "bitdepth") else "string"}')
        return
    value = str(value).strip()
    if col in ('ref', 'dis', 'output'):
        if value == '-':
            row.fail(f'{col} "-": a batch reads no input from stdin and writes no scores to stdout')
            return
        row.values[col] = os.path.join(folder, value)
    elif col in ('width', 'height', 'bitdepth'):
        ok = value.isdigit() and (int(value) in (8, 10, 12, 16) if col == 'bitdepth'
                                  else 1 <= int(value) <= 65536)
        if not ok:
            row.fail(f'{col} "{value}" is not ' +
                     ('8, 10, 12 or 16' if col == 'bitdepth' else 'an integer in [1, 65536]'))
            return
        row.values[col] = value
    elif col == 'pix_fmt':
        if value not in PIX_FMTS:
            row.fail(f'pix_fmt "{value}" is not 420, 422, 444 or 400')
            return
        row.values[col] = PIX_FMTS[value]
    else:
        row.values[col] = value


def read_manifest(path):
    """The rows of a manifest, as the CLI reads them (rows with an error
    carry it); raises ManifestError for a manifest that cannot be used."""
    try:
        with open(path, newline='') as f:
            text = f.read()
    except OSError as e:
        raise ManifestError(f'cannot open the manifest "{path}": {e.strerror}')
    folder = os.path.dirname(os.path.abspath(path))
    lines = [(i + 1, l.strip()) for i, l in enumerate(text.splitlines())]
    lines = [(n, l) for n, l in lines if l and not l.startswith('#')]
    if not lines:
        raise ManifestError(f'the manifest "{path}" holds no pair')
    rows = []
    if lines[0][1].startswith('{'):
        for n, l in lines:
            row = Row(n)
            try:
                obj = json.loads(l)
            except ValueError as e:
                row.fail(f'bad JSON: {e}')
                obj = None
            if obj is not None and not isinstance(obj, dict):
                row.fail('not a JSON object (a JSON-lines manifest has one per line)')
            for k, v in (obj.items() if isinstance(obj, dict) else ()):
                _set(row, k, v, folder)
            rows.append(row)
    else:
        header_line, header = lines[0][0], next(csv.reader([lines[0][1]]))
        header = [h.strip() for h in header]
        for h in header:
            if h not in COLUMNS:
                raise ManifestError(f'{path}:{header_line}: unknown column "{h}" in the header '
                                    '(ref, dis, output, width, height, pix_fmt, bitdepth, model)')
        cols = [COLUMNS[h] for h in header]
        if len(set(cols)) != len(cols):
            raise ManifestError(f'{path}:{header_line}: a column appears twice in the header')
        if 'ref' not in cols or 'dis' not in cols:
            raise ManifestError(f'{path}:{header_line}: the header must name the columns ref and dis')
        for n, l in lines[1:]:
            row = Row(n)
            if l.count('"') % 2:
                row.fail('a quoted field is not closed')
            else:
                fields = next(csv.reader([l]))
                if len(fields) != len(cols):
                    row.fail(f'{len(fields)} field{"" if len(fields) == 1 else "s"}, '
                             f'the header has {len(cols)}')
                else:
                    for h, v in zip(header, fields):
                        _set(row, h, v.strip(), folder)
            rows.append(row)
        if not rows:
            raise ManifestError(f'the manifest "{path}" holds no pair (only a header)')
    for row in rows:
        if 'ref' not in row.values:
            row.fail('no ref (reference input)')
        if 'dis' not in row.values:
            row.fail('no dis (distorted input)')
    return rows


def pair_command(exe, values, options):
    """The tvmaf command line of one pair (its JSON on stdout)."""
    cmd = [exe, '-r', values['ref'], '-d', values['dis']]
    for col, flag in (('width', '-w'), ('height', '-h'), ('pix_fmt', '-p'), ('bitdepth', '-b')):
        if col in values:
            cmd += [flag, values[col]]
    for m in values.get('model', '').split(';'):
        if m:
            cmd += ['-m', m]
    cmd += list(options)
    if '--precision' not in options:
        cmd += ['--precision', 'max']
    return cmd + ['--json', '-o', '-', '-q']


class PairCrashed(Exception):
    """tvmaf died (a signal): worth another attempt, elsewhere if need be."""


def score_pair(exe, values, options, env, umask=None, tag=None):
    """One pair, run as a Ray task: a dict for the results table. Raises
    PairCrashed when tvmaf dies, so that Ray retries the task. The row's
    output is written by the rule of tvmaf/_outputs.py with `umask` (the
    driver's) through the temporary file `.NAME.tmp-TAG`."""
    worker = f'{socket.gethostname()}:{os.getpid()}'
    keep = values.get('output')
    with terminate_raises():
        try:
            out = Output(keep, umask, tag) if keep else None
        except OutputError as e:
            return {'status': 'failed', 'worker': worker, 'error': str(e)}
        try:
            to_file = out is not None and out.fd is not None
            p = subprocess.run(pair_command(exe, values, options), env=dict(os.environ, **env),
                               stdout=out.fd if to_file else subprocess.PIPE,
                               stderr=subprocess.PIPE)
            stderr = p.stderr.decode('utf-8', 'replace').strip()
            if p.returncode < 0:
                raise PairCrashed(f'tvmaf was killed by signal {-p.returncode} ({stderr[-300:]})')
            if p.returncode:
                lines = [l for l in stderr.splitlines() if l.strip()]
                error = lines[-1] if lines else f'tvmaf exited with status {p.returncode}'
                if to_file and 'writing to stdout failed: ' in error:  # the output's
                    error = f'writing "{keep}" failed: ' + \
                        error.split('writing to stdout failed: ', 1)[1] + \
                        (' (the existing file is unchanged)' if os.path.lexists(out.target)
                         else '')
                return {'status': 'failed', 'worker': worker, 'error': error}
            if to_file:
                with open(out.tmp, 'rb') as f:
                    data = f.read()
            else:
                data = p.stdout
            try:
                res = json.loads(data)
            except ValueError as e:
                return {'status': 'failed', 'worker': worker,
                        'error': f'tvmaf exited with status 0 but its JSON scores are not '
                                 f'readable: {e}'}
            means = {k: '' if v is None else repr(float(v))
                     for k, v in pooled_columns(res.get('pooled_metrics') or {}).items()}
            if out is not None:
                if not to_file:
                    out.write(data)
                out.commit()
            return dict({'status': 'ok', 'vmaf_mean': ''}, **means,
                        frames=len(res.get('frames', [])), worker=worker)
        except OutputError as e:
            return {'status': 'failed', 'worker': worker, 'error': str(e)}
        finally:
            if out is not None:
                out.discard()


def check_files(rows, manifest, table):
    """The identity rule before anything is scored: fails each row (of those
    without an error) whose output is an input of the run (the manifest, any
    row's ref or dis) or an earlier row's output; returns the reason the
    table `table` (None: stdout) cannot be written, else None."""
    run = [row for row in rows if row.error is None]
    inputs = {}
    manifest_id = identity(manifest)
    for row in run:
        for col, what in (('ref', 'reference'), ('dis', 'distorted')):
            key = identity(row.values[col])
            if key is not None:
                inputs.setdefault(key, (row.line, what))
    outputs = {}
    for row in run:
        out = row.values.get('output')
        key = identity(out) if out is not None else None
        if key is None:  # no output, or a special file
            continue
        own = [what for col, what in (('ref', 'reference'), ('dis', 'distorted'))
               if identity(row.values[col]) == key]
        if own:
            row.fail(f'output "{out}" is its own {own[0]} input (the scores would overwrite it)')
        elif key == manifest_id:
            row.fail(f'output "{out}" is the manifest (the scores would overwrite it)')
        elif key in inputs:
            line, what = inputs[key]
            row.fail(f'output "{out}" is line {line}\'s {what} input (the scores would '
                     'overwrite it)')
        elif key in outputs:
            row.fail(f'output "{out}" is line {outputs[key]}\'s output too')
        else:
            outputs[key] = row.line
    key = identity(table) if table is not None else None
    if key is None:
        return None
    if key == manifest_id:
        return f'--out "{table}" is the manifest'
    if key in inputs:
        line, what = inputs[key]
        return f'--out "{table}" is line {line}\'s {what} input'
    if key in outputs:
        return f'--out "{table}" is line {outputs[key]}\'s output'
    return None


def write_table(rows, results, f):
    columns = table_columns(results[row.line] for row in rows)
    w = csv.DictWriter(f, fieldnames=columns, lineterminator='\n')
    w.writeheader()
    for row in rows:
        r = dict(results[row.line])
        r.update(line=row.line, ref=row.values.get('ref', ''), dis=row.values.get('dis', ''),
                 output=row.values.get('output', ''))
        w.writerow({k: r.get(k, '') for k in columns})


def parse_args(argv):
    if '--' in argv:
        k = argv.index('--')
        argv, options = argv[:k], argv[k + 1:]
    else:
        options = []
    ap = argparse.ArgumentParser(prog='python -m tvmaf.batch', description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('manifest')
    ap.add_argument('--ray', required=True, metavar='ADDRESS|local',
                    help='the Ray cluster (ray://HOST:PORT, HOST:PORT or auto), or local: a '
                         'cluster of this machine started for the run')
    ap.add_argument('--out', help='the results table (CSV); default stdout')
    ap.add_argument('--backend', choices=('cpu', 'cuda', 'auto'), default='cpu')
    ap.add_argument('--gpus-per-task', type=float, default=None,
                    help='GPUs each task asks Ray for (default 1 with --backend cuda, else 0)')
    ap.add_argument('--cpus-per-task', type=float, default=1)
    ap.add_argument('--max-retries', type=int, default=3,
                    help='attempts after the first when tvmaf dies (default 3)')
    ap.add_argument('--num-cpus', type=int, default=None,
                    help='with --ray local: the CPUs (so the worker processes) of the cluster')
    ap.add_argument('--tvmaf', default=os.environ.get('TVMAF_EXE', 'tvmaf'),
                    help='the tvmaf CLI on every node (default $TVMAF_EXE, else tvmaf on PATH)')
    args = ap.parse_args(argv)
    if args.gpus_per_task is None:
        args.gpus_per_task = 1.0 if args.backend == 'cuda' else 0.0
    return args, ['--backend', args.backend] + options


def main(argv=None):
    args, options = parse_args(sys.argv[1:] if argv is None else argv)
    with terminate_raises():  # SIGTERM: the `finally` below still removes temporary files
        try:
            return run(args, options)
        except KeyboardInterrupt:
            print('tvmaf.batch: interrupted', file=sys.stderr)
            return 130


def run(args, options):
    try:
        rows = read_manifest(args.manifest)
    except ManifestError as e:
        print(f'tvmaf.batch: {e}', file=sys.stderr)
        return 1
    table_error = check_files(rows, args.manifest, args.out)
    if table_error:
        print(f'tvmaf.batch: {table_error} (it would be overwritten); nothing was scored',
              file=sys.stderr)
        return 1
    results = {}
    for row in rows:
        if row.error is not None:
            print(f'tvmaf.batch: {args.manifest}:{row.line}: {row.error}', file=sys.stderr)
            results[row.line] = {'status': 'bad_row', 'error': row.error}

    import ray
    from . import _outputs
    # the task's code travels with it: workers need not import this package
    if __name__ != '__main__':
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.cloudpickle.register_pickle_by_value(_outputs)
    exe = args.tvmaf if os.path.isabs(args.tvmaf) or os.sep not in args.tvmaf \
        else os.path.abspath(args.tvmaf)
    env = {k: os.environ[k] for k in ('TVMAF_MODEL_PATH',) if k in os.environ}
    umask = current_umask()
    run_id = secrets.token_hex(4)  # names the temporary files: .NAME.tmp-RUN-LINE

    def tag(row):
        return f'{run_id}-{row.line}'

    def sweep(row):  # what a worker killed outright left
        if row.values.get('output'):
            remove_temporary(row.values['output'], tag(row))

    pending = {}
    try:
        if args.ray == 'local':
            ray.init(num_cpus=args.num_cpus, include_dashboard=False, logging_level='WARNING',
                     log_to_driver=False, object_store_memory=100 << 20)
        else:
            ray.init(address=args.ray, logging_level='WARNING', log_to_driver=False)
        task = ray.remote(score_pair).options(
            num_cpus=args.cpus_per_task, num_gpus=args.gpus_per_task,
            max_retries=args.max_retries, retry_exceptions=[PairCrashed])
        pending = {task.remote(exe, row.values, options, env, umask, tag(row)): row
                   for row in rows if row.line not in results}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            row = pending.pop(done[0])
            try:
                results[row.line] = ray.get(done[0])
            except Exception as e:  # the task's last attempt failed (Ray wraps the cause)
                cause = getattr(e, 'cause', None) or e
                why = str(cause).strip().splitlines()[-1] if str(cause).strip() else repr(cause)
                if type(cause).__name__ == 'PairCrashed':
                    why = f'after {args.max_retries + 1} attempts: {why}'
                results[row.line] = {'status': 'failed', 'error': why}
            sweep(row)
            if results[row.line]['status'] != 'ok':
                print(f'tvmaf.batch: {args.manifest}:{row.line}: {results[row.line]["error"]}',
                      file=sys.stderr)
    finally:
        if pending:  # stopped early: end the tasks still running before removing their files
            for ref in pending:
                try:
                    ray.cancel(ref, force=True)
                except Exception:
                    pass
            try:
                ray.wait(list(pending), num_returns=len(pending), timeout=30)
            except Exception:
                pass
        ray.shutdown()
        for row in pending.values():
            sweep(row)

    buf = io.StringIO()
    write_table(rows, results, buf)
    table_written = True
    if args.out:
        try:
            write_file(args.out, buf.getvalue().encode('utf-8', 'surrogateescape'), umask)
        except OutputError as e:
            print(f'tvmaf.batch: {e}', file=sys.stderr)
            table_written = False
    else:
        sys.stdout.write(buf.getvalue())
    failed = sorted(r.line for r in rows if results[r.line]['status'] != 'ok')
    summary = f'tvmaf.batch: {len(rows)} pair{"" if len(rows) == 1 else "s"}, ' \
              f'{len(rows) - len(failed)} scored, {len(failed)} failed'
    if failed:
        summary += f' (line{"" if len(failed) == 1 else "s"} {", ".join(map(str, failed[:20]))}' \
                   f'{", ..." if len(failed) > 20 else ""})'
    print(summary, file=sys.stderr)
    return 1 if failed or not table_written else 0


if __name__ == '__main__':
    sys.exit(main())
