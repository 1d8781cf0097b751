"""polyjoule.frontends"""
