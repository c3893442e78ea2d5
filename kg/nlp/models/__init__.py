"""The trained models the components run: the averaged perceptron, the encoder tagger, and
faster stand-ins for the base pipeline's neural layers."""
