import ccloudpickle, io, sys
