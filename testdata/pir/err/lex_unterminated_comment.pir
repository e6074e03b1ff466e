var x: float /* never closed
