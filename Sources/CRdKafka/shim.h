#ifndef PUSH_WORKER_CRDKAFKA_SHIM_H
#define PUSH_WORKER_CRDKAFKA_SHIM_H

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#endif
