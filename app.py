def run(cmd):
    return eval(cmd)
