"""Training pools of models over seeds and saving their logit gaps (optional extra [train])."""
