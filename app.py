def run(cmd):
    return cmd
