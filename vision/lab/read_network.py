"""The face model's network (:mod:`vision.lab.read_train`'s second part): the small CNN, the ensemble of members
that gives the log of their mean probabilities, the augmentation drawn per batch, and the training loop of one
member. Needs the ``train`` extra (torch), imported inside each function so that importing this module does not.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from vision.crop import CROP_SIZE
from vision.lab.read_data import TrainingData

CHANNELS = {32: (24, 48, 64, 96), 48: (16, 32, 64, 96)}


def build_model(
    size: int = CROP_SIZE, channels: tuple[int, int, int, int] | None = None, centre_contrast: bool = False
) -> Any:
    """The face network. With ``centre_contrast`` it sees the crop twice: standardised as a whole, and
    standardised by the mean and spread of its central half (the top face), clipped, so that faint pips
    on a dark die are as strong as bold ones on a white die whatever the table around it."""
    import torch
    from torch import nn

    if size not in CHANNELS:
        raise ValueError(f"no face network for {size} px crops (known: {sorted(CHANNELS)})")
    c1, c2, c3, c4 = channels or CHANNELS[size]
    inputs = 6 if centre_contrast else 3
    inner = slice(size // 4, size - size // 4)

    class FaceNet(nn.Module):
        """Four 3x3 conv blocks (three halve the size); the crop is standardised inside the graph."""

        def __init__(self) -> None:
            super().__init__()

            def block(cin: int, cout: int, pool: bool) -> list[nn.Module]:
                layers: list[nn.Module] = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout)]
                layers.append(nn.ReLU(inplace=True))
                if pool:
                    layers.append(nn.MaxPool2d(2))
                return layers

            self.features = nn.Sequential(
                *block(inputs, c1, True),
                *block(c1, c2, True),
                *block(c2, c3, True),
                *block(c3, c4, False),
            )
            self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(c4, 7))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            mean = x.mean(dim=(1, 2, 3), keepdim=True)
            std = ((x - mean) ** 2).mean(dim=(1, 2, 3), keepdim=True).sqrt()
            whole = (x - mean) / (std + 0.02)
            if centre_contrast:
                centre = x[:, :, inner, inner]
                mean = centre.mean(dim=(1, 2, 3), keepdim=True)
                std = ((centre - mean) ** 2).mean(dim=(1, 2, 3), keepdim=True).sqrt()
                whole = torch.cat([whole, ((x - mean) / (std + 0.02)).clamp(-4.0, 4.0)], dim=1)
            x = self.features(whole)
            return self.head(x.mean(dim=(2, 3)))

    return FaceNet()


def build_ensemble(networks: list[Any]) -> Any:
    """One network that reads a crop with every member and gives the log of their mean probabilities as its
    logits, so that the reader's softmax of them is the members' mean: the device loads one file and needs no
    change. Networks trained on other draws make fewer of the same sure mistakes (``docs/vision.md``). One
    member is returned as it is."""
    import torch
    from torch import nn

    if len(networks) == 1:
        return networks[0]

    class MeanOfMembers(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.members = nn.ModuleList(networks)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            p = torch.stack([torch.softmax(member(x), dim=1) for member in self.members]).mean(dim=0)
            # The floor keeps log finite where every member gives a class 0 (softmax of it is still 0).
            return torch.log(p.clamp_min(1e-30))

    return MeanOfMembers()


def augment(batch: Any, generator: Any, grey_share: float, soften: float) -> Any:
    """Photometric jitter and the square's symmetries, on a (N, 3, S, S) float batch in 0..1: ``grey_share`` of
    the crops lose their colour, and ``soften`` of them are shrunk to 40-80% and enlarged back (a softer,
    lower-resolution photo; at 0 it draws no random numbers, so a recipe without it keeps its batches)."""
    import torch
    from torch.nn import functional as F

    n = batch.shape[0]
    k = int(torch.randint(0, 4, (1,), generator=generator))
    batch = torch.rot90(batch, k, dims=(2, 3))
    if torch.rand(1, generator=generator) < 0.5:
        batch = torch.flip(batch, dims=(3,))
    perm = torch.randperm(3, generator=generator)
    swap = torch.rand(n, 1, 1, 1, generator=generator) < 0.5
    batch = torch.where(swap, batch[:, perm], batch)
    grey = torch.rand(n, 1, 1, 1, generator=generator) < grey_share
    batch = torch.where(grey, batch.mean(dim=1, keepdim=True).expand_as(batch), batch)
    gain = 0.6 + 0.8 * torch.rand(n, 1, 1, 1, generator=generator)
    bias = 0.3 * (torch.rand(n, 1, 1, 1, generator=generator) - 0.5)
    noise = torch.randn(batch.shape, generator=generator) * (0.04 * torch.rand(n, 1, 1, 1, generator=generator))
    if soften > 0:
        side = batch.shape[-1]
        small = max(4, round(side * (0.4 + 0.4 * float(torch.rand(1, generator=generator)))))
        blurred = F.interpolate(
            F.interpolate(batch, size=(small, small), mode="area"), size=(side, side), mode="bilinear"
        )
        batch = torch.where(torch.rand(n, 1, 1, 1, generator=generator) < soften, blurred, batch)
    return (batch * gain + bias + noise).clamp(0, 1)


def to_tensor(crops: np.ndarray) -> Any:
    """(N, S, S, 3) uint8 -> (N, 3, S, S) float tensor in 0..1, the network's input."""
    return as_uint8_tensor(crops).float() / 255.0


def as_uint8_tensor(crops: np.ndarray) -> Any:
    """(N, S, S, 3) uint8 -> (N, 3, S, S) uint8 tensor: the training set stays in bytes (a quarter of the
    memory of floats) and each batch is turned into floats when it is drawn."""
    import torch

    return torch.from_numpy(np.ascontiguousarray(crops.transpose(0, 3, 1, 2)))


def accuracy(model: Any, crops: np.ndarray, labels: np.ndarray, device: str = "cpu") -> tuple[float, np.ndarray]:
    import torch

    model.eval()
    with torch.no_grad():
        probs = np.concatenate(
            [
                torch.softmax(model(to_tensor(crops[i : i + 1024]).to(device)), dim=1).cpu().numpy()
                for i in range(0, len(crops), 1024)
            ]
        )
    return float((probs.argmax(1) == labels).mean()) if len(labels) else 0.0, probs


def train_network(args: argparse.Namespace, data: TrainingData, seed: int, name: str = "") -> Any:
    """One face network trained on ``data``, its weights and batches drawn from ``seed``."""
    import torch
    from tqdm import tqdm

    model = build_model(args.crop_size, args.channels, args.centre_contrast).to(args.device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    batch_size = 256
    steps = args.epochs * math.ceil(len(data.train_y) / batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    generator = torch.Generator().manual_seed(seed)
    x_all, y_all = as_uint8_tensor(data.train_x), torch.from_numpy(data.train_y)
    loss_fn = torch.nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(y_all), generator=generator)
        total = 0.0
        desc = f"{name}epoch {epoch + 1}/{args.epochs}"
        with tqdm(range(0, len(order), batch_size), desc=desc, unit="batch") as bar:
            for start in bar:
                idx = order[start : start + batch_size]
                xb = augment(x_all[idx].float() / 255.0, generator, args.grey, args.soften)
                loss = loss_fn(model(xb.to(args.device)), y_all[idx].to(args.device))
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                schedule.step()
                total += float(loss) * len(idx)
                bar.set_postfix(loss=f"{float(loss):.3f}")
        tune_acc, _ = accuracy(model, data.tune_x, data.tune_y, args.device)
        print(f"{desc}: loss {total / len(order):.4f}  tune accuracy (jittered) {tune_acc:.4f}", flush=True)
    return model
