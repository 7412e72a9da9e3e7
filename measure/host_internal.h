/* host_internal.h — private to the host harness: the compiled form of a batch
 * of kernels (host_compile.c), used by host.c. */
#ifndef NPU_TUNE_HOST_INTERNAL_H
#define NPU_TUNE_HOST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "measure.h"

/* The timing runner's C source, measure/host/runner.c, embedded at build time. */
extern const char ms_runner_source[];

/* A batch of jobs compiled into shared objects, and the timing runner. */
typedef struct ms_build ms_build;

/* Compiles jobs[0..n) (several per compiler invocation, invocations in
 * parallel; the jobs of a failed invocation again one by one) and the runner
 * into workdir. NULL with a reason in err when out of memory. */
ms_build *ms_build_jobs(const ms_host_job *jobs, size_t n, const char *workdir, char *err,
                        size_t errlen);

/* The runner executable, or NULL with why it did not build in why. */
const char *ms_build_runner(const ms_build *b, char *why, size_t len);

/* Job i's shared object, or NULL with the compiler's reason in why. */
const char *ms_build_object(const ms_build *b, size_t i, char *why, size_t len);

/* Removes the outputs, keeps only the sources of jobs that failed alone. */
void ms_build_free(ms_build *b);

#endif
