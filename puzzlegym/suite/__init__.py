"""The Game Suite application: its games (``registry``), its state machine (``shell``: home,
difficulty, level, level-complete and objective-complete screens, controls, unlocking) and
what each of its screens looks like (``view``)."""
