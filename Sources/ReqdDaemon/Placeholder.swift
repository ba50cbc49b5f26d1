enum _DaemonPlaceholder {}
