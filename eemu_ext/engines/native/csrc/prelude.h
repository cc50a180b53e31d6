/* Everything a translated unit includes, in order: one header, so that the build can precompile it
 * once per float model and flags (build.py) instead of parsing it again for every program. It
 * ends with the run loop (runtime.h), which reads the tables the unit defines after it. */
#ifndef EE_PRELUDE_H
#define EE_PRELUDE_H
#include "ee.h"
#include "eefloat.h"
#include "model.h"
#include "vu0.h"
#include "mmi.h"
#include "block.h"
#include "runtime.h"
#endif
