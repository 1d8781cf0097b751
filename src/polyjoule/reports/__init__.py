"""polyjoule.reports"""
