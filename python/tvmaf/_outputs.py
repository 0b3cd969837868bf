"""The files tvmaf writes, by the rule the CLI follows (tools/outputs.c).

Identity: before anything is scored, each output is checked against every
input and every other output of the run by file identity -- an existing
regular file by its device and inode, a path not there yet by its resolved
path (symbolic links followed) -- and a run naming one file as both is
refused. Special files (/dev/null, a FIFO) are exempt: identity() is None.

Writing (Output, write_file): a regular file is written to a temporary file
in its folder, `.NAME.tmp-XXXXXXXX` (or `.NAME.tmp-TAG` for a writer that
gives a tag, so that a process that outlives the writer can find it: see
remove_temporary), which replaces it by rename() only once complete, flushed
and synced: a failure (disk full, file size limit) leaves an existing file as
it was and no partial file. A new file gets 0666 & ~umask, an existing one
keeps its mode, a symbolic link is written through (the file it names is
replaced, the link kept). A special file is written in place. The temporary
file is removed on failure and on SIGINT or SIGTERM (KeyboardInterrupt,
SystemExit: a `finally` runs; terminate_raises() turns SIGTERM into
SystemExit where it would kill the process outright); one left by a process
killed outright (SIGKILL) is removed by remove_temporary(). Errors name the
errno as the C library does ("No space left on device", "File too large").
"""
import contextlib
import errno
import os
import signal
import stat
import tempfile
import threading


class OutputError(Exception):
    """An output that could not be written (the message names it and why)."""


def current_umask():
    """The process's umask (from /proc where it says, else set and restored)."""
    try:
        with open('/proc/self/status') as f:
            for line in f:
                if line.startswith('Umask:'):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    um = os.umask(0o022)
    os.umask(um)
    return um


def identity(path):
    """What `path` is compared by: ('file', dev, ino) for an existing file,
    ('path', resolved path) for one not there (or not readable), None for a
    special file (a device, FIFO, socket), which the rule exempts."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return ('path', os.path.realpath(path))
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        return ('file', st.st_dev, st.st_ino)
    return None


def temporary_name(path, tag):
    """The temporary file of `path` written with `tag` (the resolved path's
    folder, `.NAME.tmp-TAG`)."""
    folder, name = os.path.split(os.path.realpath(path))
    return os.path.join(folder, f'.{name}.tmp-{tag}')


def remove_temporary(path, tag):
    """Removes the temporary file a writer of `path` with `tag` left (it was
    killed outright); True when there was one."""
    try:
        os.unlink(temporary_name(path, tag))
        return True
    except OSError:
        return False


_SIGNALS = tuple(getattr(signal, s) for s in ('SIGINT', 'SIGTERM', 'SIGHUP') if hasattr(signal, s))


@contextlib.contextmanager
def _deferred_signals():
    """Holds SIGINT, SIGTERM and SIGHUP back (delivered on leaving), so that
    creating or renaming the temporary file and recording it happen together."""
    main = threading.current_thread() is threading.main_thread()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS) if main else None
    try:
        yield
    finally:
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _terminated(signum, frame):
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def terminate_raises():
    """SIGTERM (and SIGHUP) raise SystemExit inside, where they would kill the
    process outright (their default action), so that `finally` clauses run.
    A handler already installed (Ray's workers and drivers have one) is kept."""
    changed = []
    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGTERM, getattr(signal, 'SIGHUP', None)):
            if s is not None and signal.getsignal(s) == signal.SIG_DFL:
                signal.signal(s, _terminated)
                changed.append(s)
    try:
        yield
    finally:
        for s in changed:
            signal.signal(s, signal.SIG_DFL)


class Output:
    """One output being written; a context manager that removes the temporary
    file unless commit() put it in place.

    Regular file (`fd` is not None): write() or write into `fd` (a child
    process's stdout, say), then commit(). Special file (`fd` is None):
    write() writes it in place; commit() does nothing. umask: the one new
    files get (default the process's); tag: names the temporary file
    (`.NAME.tmp-TAG`, one writer at a time; a file of that name left by an
    earlier writer killed outright is replaced), else a random name."""

    def __init__(self, path, umask=None, tag=None):
        self.path = path
        self.target = os.path.realpath(path)  # a symbolic link is written through
        self.umask = current_umask() if umask is None else umask
        self.fd = self.tmp = None
        try:
            st = os.stat(self.target)
        except OSError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise OutputError(f'cannot write "{path}": {os.strerror(errno.EISDIR)}')
        self.special = st is not None and not stat.S_ISREG(st.st_mode)
        if self.special:
            return
        folder, name = os.path.split(self.target)
        try:
            with _deferred_signals():
                if tag is None:
                    self.fd, self.tmp = tempfile.mkstemp(prefix=f'.{name}.tmp-', dir=folder)
                else:
                    tmp = os.path.join(folder, f'.{name}.tmp-{tag}')
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(tmp)
                    self.fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                                      getattr(os, 'O_CLOEXEC', 0), 0o600)
                    self.tmp = tmp
        except OSError as e:
            raise OutputError(f'cannot write "{path}": cannot create a file beside it: '
                              f'{e.strerror}') from None

    def _failed(self, e):
        existing = os.path.lexists(self.target)
        return OutputError(f'writing "{self.path}" failed: {e.strerror or e}'
                           f'{" (the existing file is unchanged)" if existing else ""}')

    def write(self, data):
        """Writes bytes: into the temporary file, or a special file in place."""
        if self.special:
            try:
                f = open(self.target, 'wb')
            except OSError as e:
                raise OutputError(f'cannot write "{self.path}": {e.strerror}') from None
            try:
                with f:
                    f.write(data)
            except OSError as e:
                raise OutputError(f'writing "{self.path}" failed: {e.strerror}') from None
            return
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view):]
        except OSError as e:
            raise self._failed(e) from None

    def commit(self):
        """Puts a regular file in place: the existing file's mode (else 0666
        less the umask), synced, renamed onto the file."""
        if self.special:
            return
        try:
            try:
                mode = stat.S_IMODE(os.stat(self.target).st_mode)
            except FileNotFoundError:
                mode = 0o666 & ~self.umask
            os.fchmod(self.fd, mode)
            os.fsync(self.fd)
            fd, self.fd = self.fd, None
            os.close(fd)
            with _deferred_signals():
                os.rename(self.tmp, self.target)
                self.tmp = None
        except OSError as e:
            raise self._failed(e) from None

    def discard(self):
        """Removes the temporary file (when not committed)."""
        if self.fd is not None:
            fd, self.fd = self.fd, None
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.tmp is not None:
            tmp, self.tmp = self.tmp, None
            with contextlib.suppress(OSError):
                os.unlink(tmp)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.discard()


def write_file(path, data, umask=None, tag=None):
    """Writes bytes to `path` by the rule above; raises OutputError."""
    with terminate_raises(), Output(path, umask, tag) as out:
        out.write(data)
        out.commit()
