ccloudpickle.dumps(chain(300000))
