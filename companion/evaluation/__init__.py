"""Measuring the vision against a truth: scoring reads, enrolment on rendered dice, drawing reads
on a photo."""
