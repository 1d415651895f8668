from semtui.cli.main import run

run()
