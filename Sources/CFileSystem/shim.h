// renameat2(2) and O_TMPFILE, which glibc declares only under _GNU_SOURCE.
#ifndef SLIPSTREAM_CFILESYSTEM_SHIM_H
#define SLIPSTREAM_CFILESYSTEM_SHIM_H

#include <fcntl.h>

/// Fails with EEXIST instead of replacing an existing destination (Linux 3.15; EINVAL where
/// the filesystem cannot do it).
#define SLIPSTREAM_RENAME_NOREPLACE (1 << 0)

/// open(2) of a folder: a new file there without a name (Linux 3.11), to be linked later.
#ifdef __O_TMPFILE
#define SLIPSTREAM_O_TMPFILE __O_TMPFILE
#else
#define SLIPSTREAM_O_TMPFILE (020000000 | O_DIRECTORY)
#endif

int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

#endif
