import ccloudpickle
obj = ccloudpickle.loads(ccloudpickle.dumps(
    [Movie, Partial, Sub, Point, Box, Closable, Plain, Checked,
     Row]))
assert obj[0] is Movie and obj[-1] is Row
