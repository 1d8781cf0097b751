"""polyjoule.sim"""
