"The model families the ONNX exporter is tested on, written once against a `torch` module (PyTorch or litnn)."
import math


def mlp(torch):
    nn = torch.nn
    return nn.Sequential(nn.Flatten(), nn.Linear(12, 16), nn.GELU(), nn.Dropout(0.2), nn.Linear(16, 16), nn.Tanh(),
                         nn.LayerNorm(16), nn.Linear(16, 5), nn.Sigmoid(), nn.Linear(5, 4), nn.Softmax(-1))


def cnn(torch):
    nn, F = torch.nn, torch.nn.functional

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
            self.bn = nn.BatchNorm2d(8)
            self.conv2 = nn.Conv2d(8, 8, 3, stride=2, groups=2, bias=False)
            self.gn = nn.GroupNorm(2, 8)
            self.pool = nn.MaxPool2d(2)
            self.fc = nn.Linear(8, 10)

        def forward(self, x):
            x = F.relu(self.bn(self.conv1(x)))
            x = self.pool(F.leaky_relu(self.gn(self.conv2(x)), 0.1))
            x = F.adaptive_avg_pool2d(x, 1)
            x = torch.flatten(x, 1)
            return F.log_softmax(self.fc(x), dim=1)
    return CNN()


def gpt(torch, flash=True, n_layer=2, n_head=2, n_embd=16, block_size=16, vocab_size=23):
    "nanoGPT's model.py (Karpathy), its forward and modules as they are, smaller."
    nn, F = torch.nn, torch.nn.functional

    class LayerNorm(nn.Module):
        def __init__(self, ndim, bias):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(ndim))
            self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None
        def forward(self, input):
            return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.attn_dropout, self.resid_dropout = nn.Dropout(0.1), nn.Dropout(0.1)
            self.n_head, self.n_embd, self.dropout = n_head, n_embd, 0.1
            self.flash = flash and hasattr(torch.nn.functional, 'scaled_dot_product_attention')
            if not self.flash:
                self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))
        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            if self.flash:
                y = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0, is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
                att = F.softmax(att, dim=-1)
                att = self.attn_dropout(att)
                y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.resid_dropout(self.c_proj(y))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_fc, self.gelu = nn.Linear(n_embd, 4 * n_embd), nn.GELU()
            self.c_proj, self.dropout = nn.Linear(4 * n_embd, n_embd), nn.Dropout(0.1)
        def forward(self, x): return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn = LayerNorm(n_embd, bias=True), CausalSelfAttention()
            self.ln_2, self.mlp = LayerNorm(n_embd, bias=True), MLP()
        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(vocab_size, n_embd), wpe=nn.Embedding(block_size, n_embd), drop=nn.Dropout(0.1),
                h=nn.ModuleList([Block() for _ in range(n_layer)]), ln_f=LayerNorm(n_embd, bias=True)))
            self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
            self.transformer.wte.weight = self.lm_head.weight
        def forward(self, idx, targets=None):
            device = idx.device
            b, t = idx.size()
            pos = torch.arange(0, t, dtype=torch.long, device=device)
            x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
            for block in self.transformer.h: x = block(x)
            x = self.transformer.ln_f(x)
            if targets is not None:
                logits = self.lm_head(x)
                return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            return self.lm_head(x[:, [-1], :]), None
    return GPT()


def zoo(torch):
    "One module that uses many of the translated operations at once (written for torch or litnn)."
    nn, F = torch.nn, torch.nn.functional

    class Zoo(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(4, 6, 3, padding=2, dilation=2)
            self.bn = nn.BatchNorm1d(6, affine=False)
            self.gn = nn.GroupNorm(3, 6, affine=False)
            self.emb = nn.Embedding(9, 5, padding_idx=0)
            self.avg, self.ada = nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False), nn.AdaptiveAvgPool2d((2, 3))
            self.maxp = nn.MaxPool2d(2, ceil_mode=True)

        def forward(self, x, ids):
            y = self.gn(self.bn(self.conv(x)))                       # (N, 6, L)
            a = F.silu(y) + F.elu(y, 0.5) - F.hardtanh(y, -0.5, 0.5) * F.softplus(y) + F.leaky_relu(y, 0.2)
            a = a.clamp(-2, 3) ** 2 + torch.rsqrt(y.abs() + 1) - (-y).exp().add(1).log()
            b = torch.where(y > 0, y, y * 0.1).masked_fill(y < -1, 0.5) + (y >= 0).float() + (y != 0).to(y.dtype)
            c = torch.cat([a, b], 1).permute(0, 2, 1)                  # (N, L, 12)
            c = torch.stack(c.chunk(3, dim=-1), 1).sum(1)              # (N, L, 4)
            d = c[:, 1:-1:2, None, ...].flatten(2) + c[:, 0].unsqueeze(1) + c.amax(1, keepdim=True) - c.mean(dim=(1, 2), keepdim=True)
            e = self.emb(ids)[:, torch.tensor([2, 0])].tril(1) + torch.triu(self.emb(ids)[:, 1:3], -1).sum(1, keepdim=True)
            img = d.reshape(d.shape[0], 1, -1, 4).expand(-1, 3, -1, -1)
            f = self.avg(img).sum((2, 3)) + self.ada(img).sum((2, 3)) + self.maxp(img).sum((2, 3))
            return F.gelu(d, approximate='tanh'), e.softmax(-1), torch.unbind(f, 1), (ids % 3 == 1) | (ids > 6)
    return Zoo()


def seq2seq(torch):
    "nn.Transformer (encoder and decoder, pre-norm, gelu, batch first) with a causal target mask."
    nn = torch.nn

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.t = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16,
                                    batch_first=True, norm_first=True, activation='gelu')
        def forward(self, src, tgt):
            mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
            return self.t(src, tgt, tgt_mask=mask, tgt_is_causal=True)
    return Seq2Seq()
