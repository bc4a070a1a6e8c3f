import ccloudpickle as cp
import concurrent.futures, xml.dom.minidom, os.path
def f():
    with concurrent.futures.ThreadPoolExecutor(1) as ex:
        n = ex.submit(len, 'abc').result()
    doc = xml.dom.minidom.parseString('<a/>')
    return n, doc.documentElement.tagName, os.path.join('a', 'b')
data = cp.dumps(f)
