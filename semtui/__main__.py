from semtui.cli.main import main

main()
