/* Issue 12: closures that share cells, and functions of a module made at
 * run time or pickled by value, behave after loading as before. Scenarios
 * in tests/beyond (run.py says how they run). */
#include "support.h"

Test(beyond_cells, closures_sharing_a_cell_still_share_it)
{
    cpk_beyond("cells_shared");
}
