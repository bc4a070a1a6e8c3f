import io, operator, math
