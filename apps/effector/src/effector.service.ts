import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { createTopology } from '#routing';
import { NatsService, provision } from '#transport';

/**
 * The effector: executes tool intents once per intent id and publishes their results on the
 * originating key. This bootstrap connects and provisions; intent execution is added with the
 * re-injection path.
 */
@Injectable()
export class EffectorService implements OnApplicationBootstrap {
  private readonly logger = new Logger(EffectorService.name);

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    @Inject(NatsService) private readonly nats: NatsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const topology = createTopology({ prefix: this.config.prefix, partitions: this.config.partitions });
    await provision(this.nats.nc, this.nats.jsm, topology, this.config.streams);
    this.logger.log('effector connected');
  }
}
