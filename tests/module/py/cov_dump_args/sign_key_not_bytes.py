cp.dumps([1], sign_key=5)
