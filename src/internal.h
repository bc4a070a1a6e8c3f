/* internal.h - every header of src/'s layers at once, for tests (and the
 * fuzz targets) that reach inside the library; src/ and cli/ include the
 * headers they use instead (make check-layers refuses this one there). */
#ifndef CPK_INTERNAL_H
#define CPK_INTERNAL_H

#include "core/state.h"
#include "core/args.h"
#include "core/lazytypes.h"
#include "core/lookup.h"
#include "core/memio.h"
#include "core/names.h"
#include "core/stock.h"
#include "core/subtype.h"
#include "core/tracker.h"
#include "engine/deepstack.h"
#include "engine/diagnose.h"
#include "engine/gcpause.h"
#include "engine/glue.h"
#include "engine/loadpolicy.h"
#include "engine/pickler.h"
#include "engine/signing.h"
#include "engine/unpickler.h"
#include "engine/versionerror.h"
#include "types/class.h"
#include "types/classkw.h"
#include "types/code.h"
#include "types/codeinfo.h"
#include "types/codewrite.h"
#include "types/compat.h"
#include "types/exceptions.h"
#include "types/function.h"
#include "types/functools.h"
#include "types/portable.h"
#include "types/primitives.h"
#include "types/reconstruct.h"
#include "types/reducers.h"
#include "types/typeforms.h"
#include "types/typeforms_load.h"

#include "common/pycompat.h"
#include "scan/envelope.h"
#include "scan/format.h"
#include "scan/marshal_scan.h"
#include "scan/pkscan.h"
#include "scan/policy.h"
#include "scan/pycompat_scan.h"

#endif
