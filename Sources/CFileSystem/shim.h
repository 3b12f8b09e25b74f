// renameat2(2), O_TMPFILE and AT_EMPTY_PATH, which glibc declares only under _GNU_SOURCE;
// extended attributes and utimensat's UTIME_OMIT for a finished file's stamp.
#ifndef SLIPSTREAM_CFILESYSTEM_SHIM_H
#define SLIPSTREAM_CFILESYSTEM_SHIM_H

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>

/// utimensat(2): leave this time as it is.
static const long slipstream_utime_omit = UTIME_OMIT;

/// Fails with EEXIST instead of replacing an existing destination (Linux 3.15; EINVAL where
/// the filesystem cannot do it).
#define SLIPSTREAM_RENAME_NOREPLACE (1 << 0)

/// open(2) of a folder: a new file there without a name (Linux 3.11), to be linked later.
#ifdef __O_TMPFILE
#define SLIPSTREAM_O_TMPFILE __O_TMPFILE
#else
#define SLIPSTREAM_O_TMPFILE (020000000 | O_DIRECTORY)
#endif

/// linkat(2) flag: link the file open at the descriptor itself (Linux 2.6.39; without
/// CAP_DAC_READ_SEARCH only since Linux 6.10, for a file the caller opened).
#define SLIPSTREAM_AT_EMPTY_PATH 0x1000

int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

#endif
