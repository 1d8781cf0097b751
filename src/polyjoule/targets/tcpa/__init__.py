"""Processor arrays (TCPAs): the array declaration, location classes and energy table."""
