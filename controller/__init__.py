"""The table's program on a Raspberry Pi or a laptop: buttons, OLED, journal, outbox, link, simulator."""
