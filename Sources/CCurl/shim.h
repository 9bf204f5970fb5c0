#ifndef PUSH_WORKER_CCURL_SHIM_H
#define PUSH_WORKER_CCURL_SHIM_H

#include <curl/curl.h>

#endif
