#ifndef PUSH_WORKER_CLMDB_SHIM_H
#define PUSH_WORKER_CLMDB_SHIM_H

#include <lmdb.h>
#include <sys/mman.h>

#endif
