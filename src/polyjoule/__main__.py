from polyjoule.cli import main

main()
