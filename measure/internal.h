/* internal.h — what measure's backends share and the library does not export:
 * turning a candidate into its NPU kernel, as a measurement sees it. */
#ifndef NPU_TUNE_MEASURE_INTERNAL_H
#define NPU_TUNE_MEASURE_INTERNAL_H

#include "codegen.h"
#include "measure.h"

/* Generates candidate c's kernel into *k (cg_kernel_free it); false with out
 * marked illegal and the generator's reason in out->detail. */
bool ms_generate(const sp_target *t, const sp_problem *p, const sp_candidate *c, cg_kernel *k,
                 ms_measurement *out);

#endif
