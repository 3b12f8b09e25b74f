// renameat2(2), which glibc (since 2.28) declares only under _GNU_SOURCE.
#ifndef SLIPSTREAM_CFILESYSTEM_SHIM_H
#define SLIPSTREAM_CFILESYSTEM_SHIM_H

#include <fcntl.h>

/// Fails with EEXIST instead of replacing an existing destination (Linux 3.15; EINVAL where
/// the filesystem cannot do it).
#define SLIPSTREAM_RENAME_NOREPLACE (1 << 0)

int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

#endif
