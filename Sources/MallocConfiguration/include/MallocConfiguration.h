/* Nothing to call: the target only links jemalloc and sets its options (malloc_conf.c). */
