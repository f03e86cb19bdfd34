"""The Digimon Card Game (``tcgjax.make("digimon")``): card database, decks and rules."""
