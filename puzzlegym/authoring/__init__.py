"""What a game's author runs on a game's package: the contract every game keeps
(:mod:`~puzzlegym.authoring.contract`, ``puzzlegym.testing.check_game``; ``puzzlegym game
check``) and the fixtures the package commits for the shared tests
(:mod:`~puzzlegym.authoring.fixtures`; ``puzzlegym game fixtures``)."""
