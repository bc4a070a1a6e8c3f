import ccloudpickle as cp
import email.mime.text
def make():
    em = email
    def f():
        return em.mime.text.MIMEText('hi').get_payload()
    return f
data = cp.dumps(make())
