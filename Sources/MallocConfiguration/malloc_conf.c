/*
 * push-worker's memory allocator: jemalloc instead of glibc's malloc for the whole process (the Swift runtime,
 * libcurl, OpenSSL and librdkafka all allocate through it), linked by this target: it spends less CPU per push
 * than glibc's malloc at the same peak memory (docs/design-decisions.md).
 *
 * jemalloc reads its options from this symbol when it starts; MALLOC_CONF in the environment overrides them.
 * Two arenas and a one-second decay of unused pages keep the resident memory where glibc's was (jemalloc's
 * defaults, an arena per 4 cores' worth of threads and a 10 s decay, held about 15 MB more in the stream case).
 */
const char *malloc_conf = "narenas:2,dirty_decay_ms:1000,muzzy_decay_ms:0";
