from configparser import ConfigParser
import setuptools, shlex

cfg = ConfigParser(delimiters=['='])
cfg.read('settings.ini', encoding='utf-8')
cfg = cfg['DEFAULT']

expected = 'version description keywords author author_email'.split()
missing = [o for o in expected if o not in cfg]
if missing: raise ValueError(f"settings.ini is missing: {missing}")

requirements = shlex.split(cfg.get('requirements', ''))
dev_requirements = shlex.split(cfg.get('dev_requirements', ''))
train_requirements = shlex.split(cfg.get('train_requirements', ''))
docs_requirements = shlex.split(cfg.get('docs_requirements', ''))   # tools/build_docs.py
tensorboard_requirements = shlex.split(cfg.get('tensorboard_requirements', ''))   # litnn.utils.tensorboard
onnx_requirements = shlex.split(cfg.get('onnx_requirements', ''))   # litnn.onnx (export)
distributed_requirements = shlex.split(cfg.get('distributed_requirements', ''))   # litnn.distributed (MPI through mpi4py and the MPICH wheels)
fast_requirements = shlex.split(cfg.get('fast_requirements', ''))   # litnn.fused (numba: fused CPU kernels)
notebooks_requirements = shlex.split(cfg.get('notebooks_requirements', ''))   # running the notebooks in Jupyter

def _merged(*lists):
    "The requirements of several extras, each package once (the first spec of a name wins)."
    seen, out = set(), []
    for req in (r for reqs in lists for r in reqs):
        name = req.split(';')[0].split('[')[0]
        for sep in '=<>!~ ': name = name.split(sep)[0]
        if name.lower() not in seen: seen.add(name.lower()); out.append(req)
    return out

setuptools.setup(
    name=cfg['lib_name'],
    version=cfg['version'],
    description=cfg['description'],
    long_description=open('README.md', encoding='utf-8').read(),
    long_description_content_type='text/markdown',
    author=cfg['author'], author_email=cfg['author_email'],
    license='Apache-2.0',
    license_files=['LICENSE'],
    url=cfg['git_url'],
    keywords=cfg['keywords'],
    packages=setuptools.find_packages(include=['litnn', 'litnn.*']),
    include_package_data=True,
    python_requires='>=' + cfg['min_python'],
    install_requires=requirements,
    # `notebooks` and `docs` carry what the notebooks themselves import (tensorboard, onnx, mpi4py...), so that every
    # notebook runs, and every page builds, from that one extra
    extras_require={'dev': _merged(dev_requirements, docs_requirements), 'train': train_requirements,
                    'notebooks': _merged(notebooks_requirements, train_requirements, tensorboard_requirements,
                                         onnx_requirements, distributed_requirements, fast_requirements),
                    'docs': _merged(docs_requirements, tensorboard_requirements, onnx_requirements, distributed_requirements),
                    'cuda': ['cupy-cuda12x'], 'tensorboard': tensorboard_requirements,
                    'onnx': onnx_requirements, 'distributed': distributed_requirements, 'fast': fast_requirements},
    zip_safe=False,
    entry_points={'nbdev': [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"]},
)
